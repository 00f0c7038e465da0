package dev.mcprelay.virtual;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.interceptors.toolsearch.CatalogueListings;
import dev.mcprelay.interceptors.toolsearch.KeptCatalogues;
import dev.mcprelay.interceptors.toolsearch.ToolCatalogue;
import dev.mcprelay.policy.ServerListings;
import dev.mcprelay.policy.UpstreamView;
import reactor.core.publisher.Mono;

/**
 * Each member's whole tool list, as a virtual server's tool search reads it ({@link VirtualToolSearch}), listed and
 * kept as a server's tool search keeps its own: one {@link ToolCatalogue} per view of the member ({@link MemberViews}),
 * so one listing per view at a time, which every search of that view waits for (eight first searches of one view start
 * one listing); each listing in its turn among the member's listings, the bound every listing of a server shares
 * ({@link ServerListings}: direct tool search's and the policies' too), and cut as theirs are
 * ({@link CatalogueListings}: {@code listing_refused} and {@code policy_undecidable}, never a list cut short passed off
 * as whole). The list is the member's as it publishes it to the caller's view ({@link VirtualCall#forCatalogue()}:
 * never after the caller's policies), read page by page through the member's relay ({@link VirtualLists#all}). Kept
 * under the one bound in bytes of every catalogue tool search keeps ({@link KeptCatalogues}: each view weighs its
 * tools' JSON), the least recently used forgotten first; a member's are dropped when it says its tools changed (each
 * {@code list_changed} a new generation: a listing begun before it is never kept).
 */
@Component
class MemberCatalogues {

	/** Each member's generation: one more for each {@code list_changed} it sends. */
	private final Map<String, AtomicLong> generations = new ConcurrentHashMap<>();

	private final VirtualLists lists;

	private final MemberViews views;

	private final ServerListings listings;

	private final KeptCatalogues kept;

	MemberCatalogues(VirtualLists lists, MemberViews views, ServerListings listings, ListCache listCache,
			KeptCatalogues kept) {
		this.kept = kept;
		this.lists = lists;
		this.views = views;
		this.listings = listings;
		listCache.onChange((member, method) -> {
			if (method == null || method.equals("tools/list")) {
				invalidate(member);
			}
		});
	}

	/**
	 * {@code member}'s whole tool list as it publishes it to the view of the request of {@code call}: kept, or listed
	 * now in that request's session with the member (or joined to the view's listing in flight). Fails with
	 * {@link MemberUnavailable} when the member cannot answer, and with the refusal {@link CatalogueListings} makes
	 * when the member's listings are full or its list is longer than the relay reads.
	 */
	Mono<List<ObjectNode>> tools(VirtualCall call, String member) {
		ServerProperties properties = call.exchange().configuration().properties().servers().get(member);
		if (properties == null) {
			return Mono.error(new MemberUnavailable(member, "is no longer configured"));
		}
		VirtualCall listing = call.forCatalogue();
		AtomicLong generation = generations.computeIfAbsent(member, any -> new AtomicLong());
		return kept.<ToolCatalogue<List<ObjectNode>>>get(new MemberView(member, views.of(call, member)),
				() -> ToolCatalogue.listed(generation))
			.get(() -> CatalogueListings.tools(listings, member, call.exchange().caller(),
					properties.timeouts().nonStreaming(), () -> lists.all(listing, "tools/list", member)));
	}

	/** {@code member}'s tools changed: every view's list is stale, and what is being listed too. */
	void invalidate(String member) {
		generations.computeIfAbsent(member, any -> new AtomicLong()).incrementAndGet();
		kept.invalidateIf(key -> key instanceof MemberView view && view.member().equals(member));
	}

	/** Where one view's list of a member is kept among every catalogue tool search keeps. */
	private record MemberView(String member, UpstreamView view) {
	}

}
