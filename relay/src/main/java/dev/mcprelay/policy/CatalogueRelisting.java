package dev.mcprelay.policy;

import java.time.Duration;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.policy.PublishedCatalogues.Lister;
import dev.mcprelay.policy.PublishedCatalogues.Unavailable;
import dev.mcprelay.proxy.UpstreamLister;
import reactor.core.publisher.Mono;

/**
 * One listing again of what {@link PublishedCatalogues} keeps of a caller's view of a server's list, in the caller's
 * request: joined by every request that waits for the same view ({@link PublishedItems#list}), in its turn among the
 * server's listings ({@link ServerListings}), and bounded by {@link CatalogueFreshness#listingBound}. Whatever stops
 * it (the server fails or does not answer in time, the listings' bound refuses it) is {@link Unavailable}, logged by
 * {@link PolicyLog#unlisted}: the request it was for is refused as undecidable (fails closed), never decided from the
 * definitions it was to replace. A listing that hung to its bound is remembered for the same bound, for every feature
 * that lists the view through {@link PublishedCatalogues} (the policies, the {@code Mcp-Param-*} check, the headers
 * the relay writes): a request in that time begins no listing and is {@link Unavailable} at once (review 43j N-2: a
 * list that hangs made every call of a view that never listed wait the whole bound, again and again). A failure that
 * answered (an error status, a JSON-RPC error, a broken answer) is not remembered: it may be the request's own
 * (review 43l L-1), and the next request lists again ({@link PublishedItems#list}).
 */
final class CatalogueRelisting {

	private static final Logger log = LoggerFactory.getLogger(PublishedCatalogues.class);

	private final Lister lister;

	private final ServerListings listings;

	private final CatalogueFreshness freshness;

	CatalogueRelisting(Lister lister, ServerListings listings, CatalogueFreshness freshness) {
		this.lister = lister;
		this.listings = listings;
		this.freshness = freshness;
	}

	/**
	 * Lists {@code list} again into {@code kept}, the caller's view of it, in the request of {@code context} (or joins
	 * the listing in flight); completes when {@code kept} holds the new listing, {@link Unavailable} when it could not
	 * be listed within the bound.
	 */
	Mono<Void> relist(CallContext context, String list, PublishedItems kept) {
		return listing(context, list, null, kept);
	}

	/**
	 * As {@link #relist}, but reading pages only until one names {@code name} ({@link PublishedItems#seek}): what a
	 * request that needs one definition waits for (review 43h F-3: a caller that varied its view made each call a
	 * listing of every page). Joined by every request that seeks the same name in the view, and by none other; a
	 * listing of the whole view in flight is joined instead. A name no page names is the whole list's listing.
	 */
	Mono<Void> seek(CallContext context, String list, String name, PublishedItems kept) {
		return listing(context, list, name, kept);
	}

	private Mono<Void> listing(CallContext context, String list, String sought, PublishedItems kept) {
		Duration bound = freshness.listingBound(context);
		// the bound is the listing's own (inside what every waiter joins), so that a listing that hangs fails, and
		// is remembered as failed, rather than being cancelled with its waiters; its turn among the server's listings
		// must come within half of it (else Refused, not remembered: the server was not asked)
		Mono<UpstreamLister.Listed> listing = Mono.defer(() -> bounded(context, list, sought, bound.dividedBy(2)))
			.timeout(bound, Mono.defer(() -> {
				Unavailable late = Unavailable.hung(context.server(), list,
						"did not answer within " + bound.toMillis() + " ms");
				PolicyLog.unlisted(context.server(), list, late);
				return Mono.error(late);
			}));
		Supplier<Unavailable> remembered = () -> new Unavailable(context.server(), list, "could not be listed less than "
				+ bound.toMillis() + " ms ago, and is not listed again before then");
		return (sought == null ? kept.list(() -> listing, freshness.clock(), bound.toNanos(), remembered)
				: kept.seek(sought, () -> listing, freshness.clock(), bound.toNanos(), remembered))
			.onErrorMap(ServerListings.Refused.class, refused -> {
				Unavailable busy = new Unavailable(context.server(), list, refused.why());
				PolicyLog.unlisted(context.server(), list, busy);
				return busy;
			})
			.onErrorMap(failure -> !(failure instanceof Unavailable), failure -> {
				PolicyLog.unlisted(context.server(), list, failure);
				log.debug("The {} of server '{}' could not be listed for a policy", list, context.server(), failure);
				return new Unavailable(context.server(), list, "is unavailable");
			});
	}

	/**
	 * A listing of {@code list} in the request of {@code context}, in its turn among the server's
	 * ({@link ServerListings}: it waits for room within {@code wait}); a listing the bound refuses is
	 * {@link ServerListings.Refused}, which {@link #relist} answers as {@link Unavailable} (the request is refused, and
	 * may be tried again at once: nothing was asked of the server), and logs.
	 */
	private Mono<UpstreamLister.Listed> bounded(CallContext context, String list, String sought, Duration wait) {
		return listings.bounded(context.server(), context.caller(), wait, () -> lister.listAll(context, list, sought));
	}

}
