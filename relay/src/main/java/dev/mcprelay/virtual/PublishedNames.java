package dev.mcprelay.virtual;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.interceptors.toolsearch.CatalogueListings;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.policy.ServerListings;
import dev.mcprelay.policy.UpstreamView;
import reactor.core.publisher.Mono;

/**
 * What each member publishes, as a virtual server routes by it ({@link MemberTargets}): the names of its tools and
 * prompts (where prefixes leave several members possible), the URIs of its resources and its resource templates (a
 * read goes to the member that lists the URI). Read from every page of the member's list ({@link VirtualLists#all},
 * itself kept per view of the member in {@link ListCache}) as the member publishes it, before any request's policies,
 * and kept so per virtual server and view of the member ({@link MemberViews}; as {@link ListCache} keeps pages), shared
 * by the caller's sessions in that view, for at most {@link ListCache#MAX_AGE}, until the member says the list
 * changed; at most {@link #MAX_CHARS} characters of entries in all, the least recently used going first. So a
 * session's first {@code resources/read} asks the members nothing when another session of the caller's routed one
 * moments before. What a request is answered of it is decided by that request's policies ({@link MemberListPolicies}),
 * as its lists are: a name routes only to a member that would list it to that request.
 *
 * <p>Each listing is one of the member's own, bounded with every other feature's that lists it
 * ({@link ServerListings}: at most {@value ServerListings#MAX_RUNNING} at once, the others waiting within the
 * member's {@code timeouts.non-streaming}, at most {@value ServerListings#MAX_PER_CALLER} per caller), and one at a time
 * per list of a view (the requests of the view that need it meanwhile wait for it): one the bound refuses fails with
 * the refusal {@link CatalogueListings#bounded} makes ({@code listing_refused}, to be tried again), never taken for
 * a list that lacks the name.
 */
@Component
class PublishedNames {

	/** The most characters of entries kept, all members and callers together. */
	static final long MAX_CHARS = 4L * 1024 * 1024;

	/** One list of one view of a member, through one virtual server. */
	private record Key(String virtualServer, UpstreamView view, String method) {

		String member() {
			return view.server();
		}

	}

	private final VirtualLists lists;

	/** Each entry by what names it, as much of it as the policies read (a tool's name and annotations). */
	private final Cache<Key, Map<String, JsonNode>> names = Caffeine.newBuilder()
		.expireAfterWrite(ListCache.MAX_AGE)
		.maximumWeight(MAX_CHARS)
		.<Key, Map<String, JsonNode>>weigher((key, published) -> 16
				+ published.entrySet().stream().mapToInt(entry -> entry.getKey().length() + entry.getValue().size() * 16).sum())
		.build();

	private final MemberViews views;

	private final MemberListPolicies policies;

	private final ServerListings listings;

	/** The listing in flight of each list of a view, which the requests that need it meanwhile wait for. */
	private final Map<Key, Mono<Map<String, JsonNode>>> listing = new ConcurrentHashMap<>();

	PublishedNames(VirtualLists lists, ListCache listCache, MemberViews views, MemberListPolicies policies,
			ServerListings listings) {
		this.listings = listings;
		this.lists = lists;
		this.views = views;
		this.policies = policies;
		listCache.onChange((member, method) -> names.asMap()
			.keySet()
			.removeIf(key -> key.member().equals(member) && (method == null || method.equals(key.method()))));
	}

	/**
	 * What {@code member} publishes in list {@code method} that the request of {@code call} may use: names
	 * ({@code tools/list}, {@code prompts/list}), URIs ({@code resources/list}) or URI templates
	 * ({@code resources/templates/list}).
	 */
	Mono<Set<String>> of(VirtualCall call, String member, String method) {
		return published(call, member, method).map(published -> {
			MemberListPolicies.Decision decision = policies.of(call, member, method);
			Set<String> usable = new LinkedHashSet<>();
			published.forEach((name, item) -> {
				if (decision.lists(name, item)) {
					usable.add(name);
				}
			});
			return Collections.unmodifiableSet(usable);
		});
	}

	/**
	 * Every entry {@code member} publishes in list {@code method} to the view of {@code call}'s request: kept, or read
	 * (joined to the view's listing in flight), in its turn among the member's listings.
	 */
	private Mono<Map<String, JsonNode>> published(VirtualCall call, String member, String method) {
		Key key = new Key(call.server().id(), views.of(call, member), method);
		return Mono.defer(() -> {
			Map<String, JsonNode> kept = names.getIfPresent(key);
			if (kept != null) {
				return Mono.just(kept);
			}
			ServerProperties properties = call.exchange().configuration().properties().servers().get(member);
			if (properties == null) {
				return Mono.error(new MemberUnavailable(member, "is no longer configured"));
			}
			return listing.computeIfAbsent(key, any -> list(call, member, method, key, properties));
		});
	}

	/** One listing of {@code key}'s list, kept when read, shared by every request that waits for it meanwhile. */
	private Mono<Map<String, JsonNode>> list(VirtualCall call, String member, String method, Key key,
			ServerProperties properties) {
		// a list cut short (more pages than the relay reads) routes by what was read: a name past the cut is answered as
		// one no member published
		return CatalogueListings.bounded(listings, member, method, call.exchange().caller(),
				properties.timeouts().nonStreaming(), () -> lists.all(call, method, member))
			.map(listed -> {
				Map<String, JsonNode> published = new LinkedHashMap<>();
				listed.items().forEach(item -> {
					String name = MemberListPolicies.name(method, item);
					if (name != null) {
						published.putIfAbsent(name, entryOf(name, item));
					}
				});
				Map<String, JsonNode> unmodifiable = Collections.unmodifiableMap(published);
				names.put(key, unmodifiable);
				return unmodifiable;
			})
			.doFinally(signal -> listing.remove(key))
			.share();
	}

	/** What the policies read of a published entry: its name, and a tool's annotations. */
	private static JsonNode entryOf(String name, JsonNode item) {
		ObjectNode entry = JsonRpcParser.mapper().createObjectNode();
		entry.put("name", name);
		if (item.get("annotations") instanceof ObjectNode annotations) {
			entry.set("annotations", annotations.deepCopy());
		}
		return entry;
	}

}
