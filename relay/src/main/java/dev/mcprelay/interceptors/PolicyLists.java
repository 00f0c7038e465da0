package dev.mcprelay.interceptors;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.ListResponse;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.PromptsListResponse;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PolicyFacts;
import dev.mcprelay.policy.PolicyListing;
import dev.mcprelay.policy.PublishedCatalogues;
import dev.mcprelay.route.VirtualMembers;
import reactor.core.publisher.Mono;

/**
 * The lists a server answers, as {@link PolicyEnforcement} leaves them for a caller: each entry decided as the request
 * that would use it, its arguments unknown ({@link PolicyListing}: what the entries share worked out once), and left
 * out when that request would be refused. Where a rule reads the tool or prompt a request names, the entries the server
 * published are kept first as the caller's view of its catalogue ({@link PublishedCatalogues}). Tools the relay offers
 * itself are kept, and not decided. A virtual server's listing for a catalogue of its own
 * ({@link VirtualMembers#CATALOGUE_LISTING}: tool search's) is left whole: the virtual server decides each answer it
 * makes of it by the policies of the request it answers. The policies are those of the list's request's configuration
 * snapshot; a list no policy of it governs is left as it came.
 */
final class PolicyLists {

	static final String TOOLS = "tools/list";

	static final String PROMPTS = "prompts/list";

	private final Function<CallContext, Policies> policiesOf;

	private final PublishedCatalogues catalogues;

	private final BiPredicate<CallContext, String> relayOwn;

	/**
	 * @param policiesOf the policies a list's request runs on
	 * @param relayOwn whether a tool (the request's context, the tool's name) is one the relay offers itself
	 */
	PolicyLists(Function<CallContext, Policies> policiesOf, PublishedCatalogues catalogues,
			BiPredicate<CallContext, String> relayOwn) {
		this.policiesOf = policiesOf;
		this.catalogues = catalogues;
		this.relayOwn = relayOwn;
	}

	Mono<Outcome> tools(ToolsListResponse list) {
		CallContext context = list.context();
		Policies policies = policiesOf.apply(context);
		return filter(policies, list, "tools/call", TOOLS, policies.readsTool(context.server(), context.virtualServer()),
				(facts, tool) -> relayOwn.test(context, PolicyRequests.text(tool, "name")) ? null
						: facts.forTool(tool));
	}

	Mono<Outcome> prompts(PromptsListResponse list) {
		CallContext context = list.context();
		Policies policies = policiesOf.apply(context);
		return filter(policies, list, "prompts/get", PROMPTS,
				policies.readsPrompt(context.server(), context.virtualServer()),
				(facts, prompt) -> facts.forItem(null, null, PolicyRequests.text(prompt, "name"), null));
	}

	/** A list of resources or templates, each entry's URI (or template) in {@code field}. */
	Mono<Outcome> resources(ListResponse<?> list, String field) {
		return filter(policiesOf.apply(list.context()), list, "resources/read", null, false,
				(facts, resource) -> facts.forItem(null, null, null, PolicyRequests.text(resource, field)));
	}

	/** What names one entry of a list: its facts, or {@code null} for one no policy decides (the relay's own). */
	@FunctionalInterface
	private interface Entry {

		PolicyFacts of(PolicyFacts list, JsonNode entry);

	}

	/**
	 * Leaves out of {@code list} each entry the request {@code method} of it would be refused; where {@code keep}, the
	 * entries the server published are kept as the caller's view of {@code catalogue} first. A tool or prompt the list
	 * names twice is listed, kept and decided by its first entry alone, the later ones left out, so that a call of it
	 * is decided from what the caller was shown (review 43e F3; {@link PublishedCatalogues#published} keeps the first
	 * too); where only audit-mode policies govern, no copy is left out (review 43f F-F: audit mode changes nothing).
	 */
	private Mono<Outcome> filter(Policies policies, ListResponse<?> list, String method, String catalogue, boolean keep,
			Entry entry) {
		if (!policies.governs(list.context().server(), list.context().virtualServer())) {
			return Outcome.proceed();
		}
		PolicyFacts facts = PolicyRequests.facts(list.context(), method, false, null, null, null, null);
		// a virtual server's listing for its own catalogue: kept whole, decided by the virtual server per request
		boolean whole = Boolean.TRUE.equals(list.context().attributes().get(VirtualMembers.CATALOGUE_LISTING));
		PolicyListing listing = whole ? null : policies.listing(facts);
		List<JsonNode> published = keep ? new ArrayList<>() : null;
		// only an enforced policy changes a list: one governed by audit-mode policies alone keeps every copy
		java.util.Set<String> named = policies.enforces(list.context().server(), list.context().virtualServer())
				? new java.util.HashSet<>() : null;
		list.removeEntriesWhere(item -> {
			PolicyFacts itemFacts = entry.of(facts, item);
			if (itemFacts == null) {
				return false;
			}
			String name = itemFacts.tool() != null ? itemFacts.tool() : itemFacts.prompt();
			if (name != null && named != null && !named.add(name)) {
				return true; // a name listed again: the first copy is the one listed, kept and decided from
			}
			if (keep) {
				published.add(item);
			}
			return !whole && !listing.lists(itemFacts);
		});
		if (keep) {
			catalogues.published(list.context(), catalogue, published);
		}
		return Outcome.proceed();
	}

}
