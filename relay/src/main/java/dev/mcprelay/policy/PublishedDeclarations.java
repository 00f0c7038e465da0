package dev.mcprelay.policy;

import java.util.Map;
import java.util.Optional;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.proxy.ParameterHeaders;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.proxy.ToolDeclarations;
import reactor.core.publisher.Mono;

/**
 * What a tool declares for mirroring into {@code Mcp-Param-*} headers, for the relay's check of those headers
 * ({@link dev.mcprelay.proxy.ParameterHeaderChecks}), from the policies' catalogues ({@link PublishedCatalogues}): the
 * one definition the server published to the caller's view, its annotations and its declarations alike.
 *
 * <p>
 * A definition the view saw (or a catalogue the view listed whole without the tool) decides at once, of any age: one
 * older than the server's {@code tools.annotations-max-age} is listed again in the background
 * ({@link PublishedCatalogues#refreshInBackground}: one listing per view each listing bound, its failure logged), so
 * that a server whose {@code tools/list} hangs or fails keeps its calls checked against what it last published, never
 * makes them wait (review 43h F-2). Only a tool the view never saw is listed for in the caller's request, the pages up
 * to the one that names it ({@link PublishedItems#seek}; review 43h F-3), and a listing that fails then refuses it
 * ({@link RelayFailures#parameterHeadersUncheckable}, 502): nothing says what its headers mirror. A listing that failed
 * is remembered for the listing bound ({@link CatalogueRelisting}): the view's calls meanwhile are refused at once, not
 * listed for each. Where the relay only writes the headers ({@link #toWrite}), the call waits for such a listing at
 * most a short share of its bound, its turn among the server's listings included ({@link ServerListings}: a caller's
 * listings past its share wait for a turn of its own, review 43l L-3), and goes on without them when it was not read
 * by then (review 43j N-2), or was refused (the caller's waiting listings full, or the listing failed).
 */
final class PublishedDeclarations implements ToolDeclarations {

	private final PublishedCatalogues catalogues;

	PublishedDeclarations(PublishedCatalogues catalogues) {
		this.catalogues = catalogues;
	}

	@Override
	public Mono<Optional<Map<String, ParameterHeaders.Mirrored>>> of(CallContext context, String tool) {
		Optional<Map<String, ParameterHeaders.Mirrored>> kept = kept(context, tool);
		if (kept != null) {
			return Mono.just(kept);
		}
		return listed(context, tool)
			.onErrorMap(failure -> !(failure instanceof RelayFailure),
					failure -> RelayFailures.parameterHeadersUncheckable(context.server(),
							failure instanceof PublishedCatalogues.Unavailable unavailable
									? "the tools/list of server '" + context.server() + "' " + unavailable.why()
									: "the tools/list of server '" + context.server() + "' is unavailable"));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Decided as {@link #of} decides where something is kept; else the listing {@link #of} would wait for is begun
	 * (or joined) with a subscriber of its own, so that it runs to its end, and is kept (or, failing, remembered),
	 * whether or not the call still waits for it.
	 */
	@Override
	public Mono<Optional<Map<String, ParameterHeaders.Mirrored>>> toWrite(CallContext context, String tool) {
		Optional<Map<String, ParameterHeaders.Mirrored>> kept = kept(context, tool);
		if (kept != null) {
			return Mono.just(kept);
		}
		Mono<Optional<Map<String, ParameterHeaders.Mirrored>>> listing = listed(context, tool).cache();
		listing.subscribe(null, failure -> {
		});
		return listing
			.timeout(catalogues.shareOfRequestBound(context, ToolDeclarations.WRITE_WAIT_SHARE_DIVISOR),
					Mono.fromSupplier(Optional::empty))
			.onErrorResume(failure -> Mono.just(Optional.empty()));
	}

	/**
	 * What is kept of {@code tool}'s declarations, of any age (a relisting begun in the background when old);
	 * {@code null} when nothing kept decides.
	 */
	private Optional<Map<String, ParameterHeaders.Mirrored>> kept(CallContext context, String tool) {
		Optional<PublishedItems.Definition> kept = catalogues.keptOfAnyAge(context, PublishedCatalogues.TOOLS, tool);
		if (kept == null) {
			return null;
		}
		catalogues.refreshInBackground(context, PublishedCatalogues.TOOLS, tool, true);
		return kept.map(PublishedItems.Definition::headers);
	}

	/** {@code tool}'s declarations, listed in the caller's request. */
	private Mono<Optional<Map<String, ParameterHeaders.Mirrored>>> listed(CallContext context, String tool) {
		return catalogues.definition(context, PublishedCatalogues.TOOLS, tool, true)
			.map(found -> found.map(PublishedItems.Definition::headers));
	}

}
