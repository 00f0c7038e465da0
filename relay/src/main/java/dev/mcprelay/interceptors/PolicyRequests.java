package dev.mcprelay.interceptors;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PolicyDecision;
import dev.mcprelay.policy.PolicyFacts;
import dev.mcprelay.policy.PublishedCatalogues;
import reactor.core.publisher.Mono;

/**
 * The requests, as {@link PolicyEnforcement} decides them with a request's {@link Policies}: a request naming a tool,
 * prompt or resource, decided with its arguments, and refused as one naming what does not exist
 * ({@link PolicyRefusals}) before anything goes upstream; where a rule reads the tool or the prompt it names, a name the
 * server did not publish to the caller's view is answered the same way, from the catalogue the relay knows
 * ({@link PublishedCatalogues}); a server's request to the client that a policy refuses is answered to the server.
 */
final class PolicyRequests {

	private static final String TOOLS = PolicyLists.TOOLS;

	/** What a request that needs nothing of the server's list decides from: the empty definition. */
	private static final Optional<Map<String, Object>> NOTHING_PUBLISHED_NEEDED = Optional.of(Map.of());

	private final PublishedCatalogues catalogues;

	private final PolicyRefusals refusals;

	PolicyRequests(PublishedCatalogues catalogues, PolicyRefusals refusals) {
		this.catalogues = catalogues;
		this.refusals = refusals;
	}

	/** A {@code tools/call} of {@code tool} (its params' name, a string), decided with its arguments. */
	Mono<Outcome> toolsCall(Policies policies, ToolsCallRequest call, String tool) {
		CallContext context = call.context();
		String server = context.server();
		String virtual = context.virtualServer();
		return named(policies, context, TOOLS, tool,
				new Needs(policies.readsTool(server, virtual, false), policies.readsTool(server, virtual, true),
						policies.readsAnnotations(server, virtual, false),
						policies.readsAnnotations(server, virtual, true)),
				annotations -> facts(context, "tools/call", false, tool, annotations, null, null).withArguments(call),
				() -> refusals.unknownTool(context, tool));
	}

	/** A {@code prompts/get} of {@code prompt}, or a completion of its arguments ({@code arguments} {@code null}). */
	Mono<Outcome> prompt(Policies policies, CallContext context, String prompt, Map<String, Object> arguments) {
		String server = context.server();
		String virtual = context.virtualServer();
		return named(policies, context, PolicyLists.PROMPTS, prompt,
				new Needs(policies.readsPrompt(server, virtual, false), policies.readsPrompt(server, virtual, true),
						false, false),
				any -> facts(context, "prompts/get", false, null, null, prompt, null).withArguments(arguments),
				() -> refusals.unknownPrompt(context, prompt));
	}

	/**
	 * What the policies need of what the server published of the item a request names: whether any of them reads it
	 * ({@code read}), whether an enforced one does ({@code enforced}), and whether an enforced one reads a tool's
	 * annotations, which must then be no older than the server's {@code tools.annotations-max-age}
	 * ({@code enforcedFresh}; {@code fresh}: any one does). Only what an enforced policy needs can make the request
	 * wait for the server's list or be refused; audit-mode ones read what is kept, of any age, or nothing, and have it
	 * listed again in the background (review 43e F1, 43f F-A).
	 */
	private record Needs(boolean read, boolean enforced, boolean fresh, boolean enforcedFresh) {
	}

	/**
	 * A request naming {@code name} of the list {@code catalogue}, decided by the policies on the facts {@code facts}
	 * makes of what the server published of it. Where an enforced policy reads what it names, a name the server did
	 * not publish to the caller's view is answered {@code unknown} too, and never goes upstream, and a request whose
	 * list cannot be had is refused as undecidable; where an enforced rule reads a tool's annotations, from a
	 * definition no older than the server's {@code tools.annotations-max-age}. Where only audit-mode ones read it, the
	 * request never waits for the server's list: it is decided from what the relay keeps of the caller's view, however
	 * old, or without the definition when nothing is kept (an audit rule that needs it counts an {@code error}), and
	 * refused by nothing of theirs, what is kept being listed again in the background when it is not young enough for
	 * them ({@link PublishedCatalogues#refreshInBackground}); so it is beside an enforced rule that needs no more than
	 * what is kept (a name).
	 * Decided at once (a constant {@code Mono}, which the chain takes as it is, with no timer) when nothing has to be
	 * listed ({@link PublishedCatalogues#known}); else once the list is read.
	 */
	private Mono<Outcome> named(Policies policies, CallContext context, String catalogue, String name, Needs needs,
			Function<Map<String, Object>, PolicyFacts> facts, Supplier<RejectError> unknown) {
		Optional<Map<String, Object>> known = needs.read() && name != null
				? catalogues.known(context, catalogue, name, needs.enforcedFresh()) : NOTHING_PUBLISHED_NEEDED;
		if (known != null || !needs.enforced()) {
			if (needs.read() && name != null && (known == null || needs.fresh() && !needs.enforcedFresh())) {
				catalogues.refreshInBackground(context, catalogue, name, needs.fresh());
			}
			return decide(policies, catalogue, known == null ? Optional.empty() : known, needs.enforced(), facts,
					unknown);
		}
		return catalogues.find(context, catalogue, name, needs.enforcedFresh())
			.flatMap(found -> decide(policies, catalogue, found, true, facts, unknown))
			.onErrorResume(PublishedCatalogues.Unavailable.class, unavailable -> {
				Optional<Map<String, Object>> older = needs.enforcedFresh() ? null
						: catalogues.known(context, catalogue, name, false);
				if (older != null) {
					return decide(policies, catalogue, older, true, facts, unknown);
				}
				String policy = policies.undecidable(context.server(), context.virtualServer(), catalogue.equals(TOOLS));
				return Outcome.reject(refusals.undecidable(context, catalogue, unavailable.why(), policy));
			});
	}

	/**
	 * The decision on a request naming what {@code found} says the server published of it (empty: nothing). A name
	 * with nothing published is answered as unknown with {@code strict} (an enforced policy reads it); else it is
	 * decided without a definition, as on a server no such policy governs.
	 */
	private static Mono<Outcome> decide(Policies policies, String catalogue, Optional<Map<String, Object>> found,
			boolean strict, Function<Map<String, Object>, PolicyFacts> facts, Supplier<RejectError> unknown) {
		if (found.isEmpty() && !strict) {
			PolicyDecision decision = policies.decide(facts.apply(null));
			return decision.allowed() ? Outcome.proceed() : refuse(decision, unknown.get());
		}
		if (found.isEmpty()) {
			return Outcome.reject(unknown.get()
				.withLogReason(catalogue.equals(TOOLS) ? "unknown_tool" : "unknown_prompt", null));
		}
		PolicyDecision decision = policies.decide(facts.apply(found.get()));
		return decision.allowed() ? Outcome.proceed() : refuse(decision, unknown.get());
	}

	/** A request naming the resource {@code uri}, decided as its {@code resources/read}. */
	Mono<Outcome> resource(Policies policies, CallContext context, String uri) {
		PolicyDecision decision = policies.decide(facts(context, "resources/read", false, null, null, null, uri));
		return decision.allowed() ? Outcome.proceed() : refuse(decision, refusals.resourceNotFound(uri));
	}

	/** A server's request {@code method} to the client: a refusal answers the server. */
	static Mono<Outcome> serverRequest(Policies policies, CallContext context, String method) {
		PolicyDecision decision = policies.decide(facts(context, method, true, null, null, null, null));
		return decision.allowed() ? Outcome.proceed() : refuse(decision,
				new RejectError(JsonRpcErrorCodes.POLICY_REJECTED, "The client does not take " + method + " here"));
	}

	/** Whether the caller may read the resource {@code uri} (counted as hidden when not). */
	static boolean readable(Policies policies, CallContext context, String uri) {
		return policies.lists(facts(context, "resources/read", false, null, null, null, uri));
	}

	/** A refusal the client reads as {@code error}; the access log and meters name the policy. */
	private static Mono<Outcome> refuse(PolicyDecision decision, RejectError error) {
		return Outcome.reject(error.withLogReason(PolicyDecision.REASON, decision.policy()));
	}

	static PolicyFacts facts(CallContext context, String method, boolean fromServer, String tool,
			Map<String, Object> annotations, String prompt, String resource) {
		return new PolicyFacts(context.caller(), context.server(), context.virtualServer(), method, fromServer, tool,
				annotations, prompt, resource, null, context.headers());
	}

	/** Whether {@code field} of {@code node} names something: a string. */
	static boolean named(JsonNode node, String field) {
		JsonNode value = node.get(field);
		return value != null && value.isTextual();
	}

	/**
	 * A request that names what it uses by something other than a string (an object, an array, a number, nothing)
	 * names nothing a policy can decide: refused as malformed (-32602) before any policy, so that it never goes
	 * upstream, where a lenient server might read it as a name (fails closed).
	 */
	static Mono<Outcome> malformed(String problem) {
		return Outcome.reject(RejectError.invalidParams("Invalid params: " + problem));
	}

	static String text(JsonNode node, String field) {
		JsonNode value = node.get(field);
		return value != null && value.isTextual() ? value.textValue() : null;
	}

	/** Whether {@code field} of a message's object read in place ({@code paramsView()}) names something: a string. */
	static boolean named(Map<String, Object> object, String field) {
		return object.get(field) instanceof String;
	}

	/** {@code field} of a message's object read in place, when a string; else {@code null}. */
	static String text(Map<String, Object> object, String field) {
		return object.get(field) instanceof String text ? text : null;
	}

	/** The object under {@code field} of a message's object read in place; empty when absent or not an object. */
	@SuppressWarnings("unchecked")
	static Map<String, Object> object(Map<String, Object> object, String field) {
		return object.get(field) instanceof Map<?, ?> found ? (Map<String, Object>) found : Map.of();
	}

}
