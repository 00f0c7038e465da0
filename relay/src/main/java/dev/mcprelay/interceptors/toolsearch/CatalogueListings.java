package dev.mcprelay.interceptors.toolsearch;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.policy.PublishedCatalogues;
import dev.mcprelay.policy.ServerListings;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.UpstreamLister;
import reactor.core.publisher.Mono;

/**
 * Tool search's listing of one server's whole tool list, for a server's search ({@link ToolSearchPolicy}) and for a
 * virtual server's over each of its members alike: the one bound and the one cut the policies' listings have
 * ({@link PublishedCatalogues}), so that a search is no cheaper way to make the relay list a server than a call.
 * <ul>
 * <li>In its turn among the server's listings ({@link ServerListings}: at most {@value ServerListings#MAX_RUNNING} at
 * once, waiting first come first served within {@code wait}, at most {@value ServerListings#MAX_PER_CALLER} per
 * caller); one the bound refuses is refused to the client with {@code data.reason} {@code listing_refused}, to try
 * again.</li>
 * <li>A list longer than the relay reads ({@link UpstreamLister#MAX_PAGES} pages, {@value PublishedCatalogues#MAX_ITEMS}
 * items) is not the whole catalogue, so a search of it (and a list composed from it) could not say what the server
 * offers: it is refused as the policies refuse a request they cannot decide for a cut list, {@code data.reason}
 * {@code policy_undecidable}, and nothing of it is kept.</li>
 * </ul>
 * One listing per view at a time is the caller's part ({@link ToolCatalogue}, which every search of the view waits on).
 */
public final class CatalogueListings {

	private CatalogueListings() {
	}

	/**
	 * The tools of {@code server}'s whole list as {@code listing} reads it (every page, whether it is the whole list),
	 * run in its turn among the server's listings for {@code caller}, waiting at most {@code wait} for it; a
	 * {@link RejectError} when the bound refuses it, the list was cut, or the upstream failed the listing (its
	 * {@link RelayFailure}'s reason); any other failure as it came.
	 */
	public static Mono<List<ObjectNode>> tools(ServerListings listings, String server, Caller caller, Duration wait,
			Supplier<Mono<UpstreamLister.Listed>> listing) {
		return bounded(listings, server, "tools/list", caller, wait, listing)
			.onErrorMap(RelayFailure.class, failed -> unavailable(server, failed))
			.flatMap(listed -> !listed.whole() || listed.items().size() > PublishedCatalogues.MAX_ITEMS
					? Mono.error(cut(server)) : Mono.just(ToolIndex.toolsAmong(listed.items())));
	}

	/**
	 * {@code listing} of {@code server}'s list {@code method}, run in its turn among the server's listings for
	 * {@code caller}, waiting at most {@code wait}; a {@link RejectError} ({@code data.reason} {@code listing_refused},
	 * to be tried again) when the bound refuses it: the refusal of every listing a feature makes on its own account
	 * (tool search's, a virtual server's routing by its members' lists).
	 */
	public static <T> Mono<T> bounded(ServerListings listings, String server, String method, Caller caller,
			Duration wait, Supplier<Mono<T>> listing) {
		return listings.bounded(server, caller, wait, listing)
			.onErrorMap(ServerListings.Refused.class, refused -> new RejectError(JsonRpcErrorCodes.INTERNAL_ERROR,
					"The relay cannot list the " + what(method) + " of server '" + server + "' now: its list "
							+ refused.why(),
					Map.of("reason", "listing_refused")));
	}

	/** What list {@code method} lists, in words: {@code tools/list} the tools. */
	private static String what(String method) {
		return switch (method) {
			case "resources/templates/list" -> "resource templates";
			default -> method.substring(0, method.indexOf('/'));
		};
	}

	/**
	 * A listing the upstream failed (an error status, an invalid answer, no answer): the search is refused as what it
	 * is, -32603 with the failure's own reason ({@code upstream_error_status}, ...), never an interceptor's failure.
	 */
	private static RejectError unavailable(String server, RelayFailure failed) {
		return new RejectError(JsonRpcErrorCodes.INTERNAL_ERROR, "The relay cannot list the tools of server '" + server
				+ "' now: its tools/list is unavailable (" + failed.reason() + ")", Map.of("reason", failed.reason()))
			.withLogReason(failed.reason(), null);
	}

	private static RejectError cut(String server) {
		return new RejectError(JsonRpcErrorCodes.INTERNAL_ERROR, "The relay cannot decide this request: the tools/list "
				+ "of server '" + server + "', which tool search reads, is longer than the relay reads ("
				+ UpstreamLister.MAX_PAGES + " pages, " + PublishedCatalogues.MAX_ITEMS + " items)",
				Map.of("reason", "policy_undecidable")).withLogReason("policy_undecidable", null);
	}

}
