package dev.mcprelay.virtual;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.stereotype.Component;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.policy.UpstreamView;
import reactor.core.publisher.Mono;

/**
 * What each member publishes, as a virtual server routes by it ({@link MemberTargets}): the names of its tools and
 * prompts (where prefixes leave several members possible), the URIs of its resources and its resource templates (a
 * read goes to the member that lists the URI). Read from every page of the member's list ({@link VirtualLists#all},
 * itself kept per view of the member in {@link ListCache}), and kept per virtual server and view of the member
 * ({@link MemberViews}; as {@link ListCache} keeps pages), shared by the caller's sessions in that view, for
 * at most {@link ListCache#MAX_AGE}, until the member says the list changed; at most {@link #MAX_CHARS} characters of
 * names in all, the least recently used going first. So a session's first {@code resources/read} asks the members
 * nothing when another session of the caller's routed one moments before.
 */
@Component
class PublishedNames {

	/** The most characters of names kept, all members and callers together. */
	static final long MAX_CHARS = 4L * 1024 * 1024;

	/** One list of one view of a member, through one virtual server (whose policies decided what the member listed). */
	private record Key(String virtualServer, UpstreamView view, String method) {

		String member() {
			return view.server();
		}

	}

	private final VirtualLists lists;

	private final Cache<Key, Set<String>> names = Caffeine.newBuilder()
		.expireAfterWrite(ListCache.MAX_AGE)
		.maximumWeight(MAX_CHARS)
		.<Key, Set<String>>weigher((key, published) -> 16 + published.stream().mapToInt(String::length).sum())
		.build();

	private final MemberViews views;

	PublishedNames(VirtualLists lists, ListCache listCache, MemberViews views) {
		this.lists = lists;
		this.views = views;
		listCache.onChange((member, method) -> names.asMap()
			.keySet()
			.removeIf(key -> key.member().equals(member) && (method == null || method.equals(key.method()))));
	}

	/**
	 * What {@code member} publishes in list {@code method}, for the caller of {@code call}: names ({@code tools/list},
	 * {@code prompts/list}), URIs ({@code resources/list}) or URI templates ({@code resources/templates/list}).
	 */
	Mono<Set<String>> of(VirtualCall call, String member, String method) {
		Key key = new Key(call.server().id(), views.of(call, member), method);
		Set<String> kept = names.getIfPresent(key);
		if (kept != null) {
			return Mono.just(kept);
		}
		String field = switch (method) {
			case "resources/list" -> "uri";
			case "resources/templates/list" -> "uriTemplate";
			default -> "name";
		};
		// a list cut short (more pages than the relay reads) routes by what was read: a name past the cut is answered as
		// one no member published
		return lists.all(call, method, member).map(listed -> {
			Set<String> published = new LinkedHashSet<>();
			listed.items().forEach(item -> {
				if (item.path(field).isTextual()) {
					published.add(item.get(field).textValue());
				}
			});
			Set<String> unmodifiable = Collections.unmodifiableSet(published);
			names.put(key, unmodifiable);
			return unmodifiable;
		});
	}

}
