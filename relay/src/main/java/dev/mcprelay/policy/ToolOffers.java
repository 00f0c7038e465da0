package dev.mcprelay.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import reactor.core.publisher.Mono;

/**
 * What a feature that offers a server's tools from a copy of its own (tool search's index: the tools a search finds,
 * and those its {@code tools/list} answers) may offer a caller: each tool decided as a call of it would be
 * ({@code mcp.method} {@code tools/call}, its arguments not known yet), from the definition the server published to
 * the caller's view as the policies keep it ({@link PublishedCatalogues#findAll}), never from the copy. So the same
 * freshness holds as for the call: where a rule reads annotations, a definition older than the server's
 * {@code tools.annotations-max-age} (or one forgotten on the server's {@code list_changed}) is listed again first, and
 * a tool the server no longer publishes to the view is not offered; and the policies are the request's own, so a
 * reload that changed them decides the next offer. What is offered is what may be called. Where no rule that governs
 * the server reads the tool, nothing of the server's list is needed, and the copy's entry is decided as it is (the
 * policies read nothing of it).
 */
public final class ToolOffers {

	private ToolOffers() {
	}

	/**
	 * Those of {@code tools} (entries as the server listed them, named by their {@code name}) that {@code policies},
	 * the policies of the request of {@code context}, let its caller be offered, in their order. Decided at once where
	 * the caller's view is kept young enough; else after one listing of it. A listing that fails (or hangs past the
	 * server's {@code timeouts.non-streaming} less a fifth) fails with the policies' refusal of a request they cannot
	 * decide ({@link PublishedCatalogues.Unavailable#refusal}: {@code policy_undecidable}, counted as an {@code error}
	 * of each rule that reads the tool). Where only audit-mode rules read the tool, nothing waits for the server's list
	 * and nothing is kept from the caller for want of it: each tool is decided from the definition kept of the view, of
	 * any age, or from the entry as listed when none is kept.
	 */
	public static Mono<List<ObjectNode>> offerable(Policies policies, PublishedCatalogues catalogues,
			CallContext context, List<ObjectNode> tools) {
		String server = context.server();
		String virtualServer = context.virtualServer();
		if (tools.isEmpty() || !policies.governs(server, virtualServer)) {
			return Mono.just(tools);
		}
		PolicyFacts facts = PolicyFacts.of(context, "tools/call", false);
		if (!policies.readsTool(server, virtualServer)) {
			return Mono.just(asCopied(policies, facts, tools));
		}
		if (!policies.readsTool(server, virtualServer, true)) {
			return Mono.just(asKept(policies, catalogues, context, facts, tools,
					policies.readsAnnotations(server, virtualServer)));
		}
		List<String> names = new ArrayList<>(tools.size());
		tools.forEach(tool -> names.add(nameOf(tool)));
		return catalogues.findAll(context, PublishedCatalogues.TOOLS, names.stream().filter(name -> name != null)
			.toList(), policies.readsAnnotations(server, virtualServer, true))
			.map(published -> {
				PolicyListing listing = policies.listing(facts);
				List<ObjectNode> offered = new ArrayList<>();
				for (int i = 0; i < tools.size(); i++) {
					Map<String, Object> definition = names.get(i) == null ? null : published.get(names.get(i));
					if (definition != null && listing.lists(facts.forItem(names.get(i), definition, null, null))) {
						offered.add(tools.get(i));
					}
				}
				return offered;
			})
			.onErrorResume(PublishedCatalogues.Unavailable.class, unavailable -> {
				String policy = policies.undecidable(server, virtualServer, true);
				return Mono.error(PublishedCatalogues.Unavailable.refusal(server, PublishedCatalogues.TOOLS,
						unavailable.why(), policy));
			});
	}

	/**
	 * Those of {@code tools} the policies let the caller be offered, each decided from the entry as copied: where no
	 * rule reads the tool (they read nothing of it).
	 */
	private static List<ObjectNode> asCopied(Policies policies, PolicyFacts facts, List<ObjectNode> tools) {
		PolicyListing listing = policies.listing(facts);
		return tools.stream().filter(tool -> listing.lists(facts.forTool(tool))).toList();
	}

	/**
	 * Those of {@code tools} the policies let the caller be offered where only audit-mode rules read the tool: each
	 * decided from the definition kept of the caller's view, of any age, or from the entry as copied when none is
	 * kept; never after a listing (review 43f F-A: an audit rule makes nothing wait, and refuses nothing). Where one
	 * is not kept, or not young enough for a rule that reads {@code annotations}, the view is listed again in the
	 * background ({@link PublishedCatalogues#refreshInBackground}).
	 */
	private static List<ObjectNode> asKept(Policies policies, PublishedCatalogues catalogues, CallContext context,
			PolicyFacts facts, List<ObjectNode> tools, boolean annotations) {
		PolicyListing listing = policies.listing(facts);
		List<ObjectNode> offered = new ArrayList<>();
		boolean refreshing = false;
		for (ObjectNode tool : tools) {
			String name = nameOf(tool);
			Optional<Map<String, Object>> kept = name == null ? null
					: catalogues.known(context, PublishedCatalogues.TOOLS, name, false);
			if (!refreshing && name != null && (kept == null
					|| annotations && catalogues.known(context, PublishedCatalogues.TOOLS, name, true) == null)) {
				catalogues.refreshInBackground(context, PublishedCatalogues.TOOLS, name, annotations);
				refreshing = true;
			}
			if (kept != null && kept.isPresent() ? listing.lists(facts.forItem(name, kept.get(), null, null))
					: listing.lists(facts.forTool(tool))) {
				offered.add(tool);
			}
		}
		return offered;
	}

	private static String nameOf(JsonNode tool) {
		JsonNode name = tool.get("name");
		return name != null && name.isTextual() ? name.textValue() : null;
	}

}
