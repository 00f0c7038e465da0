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
 * makes them wait (review 43h F-2). Only a tool the view never saw is listed for in the caller's request, and a listing
 * that fails then refuses it ({@link RelayFailures#parameterHeadersUncheckable}, 502): nothing says what its headers
 * mirror.
 */
final class PublishedDeclarations implements ToolDeclarations {

	private final PublishedCatalogues catalogues;

	PublishedDeclarations(PublishedCatalogues catalogues) {
		this.catalogues = catalogues;
	}

	@Override
	public Mono<Optional<Map<String, ParameterHeaders.Mirrored>>> of(CallContext context, String tool) {
		Optional<PublishedItems.Definition> kept = catalogues.keptOfAnyAge(context, PublishedCatalogues.TOOLS, tool);
		if (kept != null) {
			catalogues.refreshInBackground(context, PublishedCatalogues.TOOLS, tool, true);
			return Mono.just(kept.map(PublishedItems.Definition::headers));
		}
		return catalogues.definition(context, PublishedCatalogues.TOOLS, tool, true)
			.map(found -> found.map(PublishedItems.Definition::headers))
			.onErrorMap(failure -> !(failure instanceof RelayFailure),
					failure -> RelayFailures.parameterHeadersUncheckable(context.server(),
							failure instanceof PublishedCatalogues.Unavailable unavailable
									? "the tools/list of server '" + context.server() + "' " + unavailable.why()
									: "the tools/list of server '" + context.server() + "' is unavailable"));
	}

}
