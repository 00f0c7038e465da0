package dev.mcprelay.interceptors;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.ElicitationRequest;
import dev.mcprelay.api.ElicitationRequestInterceptor;
import dev.mcprelay.api.ListRequest;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.PromptsGetRequest;
import dev.mcprelay.api.PromptsGetRequestInterceptor;
import dev.mcprelay.api.PromptsListRequestInterceptor;
import dev.mcprelay.api.PromptsListResponse;
import dev.mcprelay.api.PromptsListResponseInterceptor;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.RequestInterceptor;
import dev.mcprelay.api.ResourceTemplatesListResponse;
import dev.mcprelay.api.ResourceTemplatesListResponseInterceptor;
import dev.mcprelay.api.ResourcesListResponse;
import dev.mcprelay.api.ResourcesListResponseInterceptor;
import dev.mcprelay.api.ResourcesReadRequest;
import dev.mcprelay.api.ResourcesReadRequestInterceptor;
import dev.mcprelay.api.RootsListRequest;
import dev.mcprelay.api.RootsListRequestInterceptor;
import dev.mcprelay.api.SamplingRequest;
import dev.mcprelay.api.SamplingRequestInterceptor;
import dev.mcprelay.api.ServerNotification;
import dev.mcprelay.api.ServerNotificationInterceptor;
import dev.mcprelay.api.ServerRequest;
import dev.mcprelay.api.SubscriptionsListenRequest;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.api.ToolsListRequestInterceptor;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.intercept.ConfiguredInterceptor;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PolicyCompiler;
import dev.mcprelay.policy.PolicyDecision;
import dev.mcprelay.policy.PolicyFacts;
import dev.mcprelay.policy.RelayOwnTools;
import dev.mcprelay.policy.PublishedCatalogues;
import reactor.core.publisher.Mono;

/**
 * The policies of {@code mcp-relay.policies} and each server's {@code tools} lists ({@link Policies}) on every path a
 * tool, prompt or resource is listed or used: what a caller may not use is left out of every list it would appear in
 * ({@code tools/list}, {@code prompts/list}, {@code resources/list}, {@code resources/templates/list}: JSON, POST
 * streams, the GET stream, the re-lists after {@code list_changed}; through a virtual server each member's list before
 * the merge), and a request naming it ({@code tools/call}, {@code prompts/get}, {@code resources/read},
 * {@code resources/subscribe}, {@code completion/complete}) is answered as one naming something that does not exist
 * ({@link PolicyRefusals}), before anything goes upstream; a {@code subscriptions/listen} goes upstream without the
 * resources the caller may not read, and their updates never reach it ({@link PolicySubscriptions}). Where a rule
 * reads the tool or the prompt a request names, a name the server did not publish to the caller's view is answered
 * the same way, from the catalogue the relay knows ({@link PublishedCatalogues}), and never goes upstream. A server's
 * request to the client ({@code sampling/createMessage}, {@code elicitation/create}, {@code roots/list}) that a policy
 * refuses is answered to the server.
 *
 * <p>It runs before interceptors of default order ({@link #ORDER}), so that they see only what the caller may use. The
 * policies are those of the configuration snapshot the request runs on ({@link PolicyCompiler}): an edit applies from
 * the next request, and a request no policy of its snapshot governs (its server, through its virtual server if any) is
 * let through untouched. Tools the relay offers itself
 * ({@link RelayOwnTools}: tool search's) are neither hidden nor refused here: what they answer is kept within the
 * caller's policies by the feature that offers them.
 */
@Component
public class PolicyEnforcement implements ToolsListResponseInterceptor, ToolsCallRequestInterceptor,
		PromptsListResponseInterceptor, PromptsGetRequestInterceptor, ResourcesListResponseInterceptor,
		ResourceTemplatesListResponseInterceptor, ResourcesReadRequestInterceptor, RequestInterceptor,
		SamplingRequestInterceptor, ElicitationRequestInterceptor, RootsListRequestInterceptor,
		ServerNotificationInterceptor, ToolsListRequestInterceptor, PromptsListRequestInterceptor, ConfiguredInterceptor,
		Ordered, SnapshotPart<Set<String>> {

	/** Early, so that later interceptors never see what a caller may not use. */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

	private static final String TOOLS = PolicyLists.TOOLS;

	private static final String PROMPTS = PolicyLists.PROMPTS;

	/** The policies of each snapshot, for the chains; {@code null} for the unit tests' fixed policies. */
	private final PolicyCompiler compiler;

	/** The policies a request runs on: its snapshot's. */
	private final Function<CallContext, Policies> policiesOf;

	private final PublishedCatalogues catalogues;

	private final PolicyRefusals refusals;

	private final PolicyLists lists;

	private final List<RelayOwnTools> relayOwn;

	/**
	 * The enforcement of the policies of each request's configuration snapshot ({@link PolicyCompiler#of(CallContext)}),
	 * its refusals in the words of that snapshot's virtual servers.
	 */
	@Autowired
	public PolicyEnforcement(PolicyCompiler compiler, PublishedCatalogues catalogues,
			ObjectProvider<LiveConfiguration> live, List<RelayOwnTools> relayOwn) {
		this(compiler, compiler::of, catalogues, context -> {
			ConfigurationSnapshot snapshot = CallConfiguration.of(context);
			return (snapshot != null ? snapshot : live.getObject().current()).properties();
		}, relayOwn);
	}

	/** The enforcement of fixed {@code policies} and {@code properties}, whatever a call's snapshot: for unit tests. */
	public PolicyEnforcement(Policies policies, PublishedCatalogues catalogues, RelayProperties properties,
			List<RelayOwnTools> relayOwn) {
		this(null, context -> policies, catalogues, context -> properties, relayOwn);
	}

	private PolicyEnforcement(PolicyCompiler compiler, Function<CallContext, Policies> policiesOf,
			PublishedCatalogues catalogues, Function<CallContext, RelayProperties> propertiesOf,
			List<RelayOwnTools> relayOwn) {
		this.compiler = compiler;
		this.policiesOf = policiesOf;
		this.catalogues = catalogues;
		this.refusals = new PolicyRefusals(propertiesOf);
		this.relayOwn = List.copyOf(relayOwn);
		this.lists = new PolicyLists(policiesOf, catalogues, this::relayOwn);
	}

	@Override
	public String name() {
		return "policy";
	}

	/**
	 * A server some policy of the snapshot governs (naming it, {@code *}, or a virtual server it is a member of); at the
	 * list requests, only where its catalogues are kept ({@link #compile}); at the server notifications, only there or
	 * where the policies may hide a resource from some caller ({@link Policies#mayHideResources}). A server no policy
	 * governs has no policy interceptor in that snapshot, and gets it from the first request of a snapshot that governs
	 * it.
	 */
	@Override
	public boolean appliesTo(SnapshotCompilation compilation, String server, Stage<?> stage) {
		Policies policies = compilation.part(compiler);
		List<String> through = throughOf(compilation.properties(), server);
		if (through.stream().noneMatch(virtual -> policies.governs(server, virtual))) {
			return false;
		}
		boolean catalogued = compilation.part(this).contains(server);
		if (stage == Stage.TOOLS_LIST_REQUEST || stage == Stage.PROMPTS_LIST_REQUEST) {
			return catalogued;
		}
		if (stage == Stage.SERVER_NOTIFICATION) {
			return catalogued || through.stream().anyMatch(virtual -> policies.mayHideResources(server, virtual));
		}
		return true;
	}

	@Override
	public String partName() {
		return "policy catalogues";
	}

	/**
	 * The servers whose published tools and prompts the policies of the snapshot keep ({@link PublishedCatalogues}): those
	 * a governing policy reads the tool or the prompt a request names on, directly or through a virtual server. Only
	 * they hear the server's {@code list_changed} and note the lists sent.
	 */
	@Override
	public Set<String> compile(SnapshotCompilation compilation) {
		Policies policies = compilation.part(compiler);
		Set<String> catalogued = new HashSet<>();
		for (String server : compilation.properties().servers().keySet()) {
			if (throughOf(compilation.properties(), server).stream()
				.anyMatch(virtual -> policies.readsTool(server, virtual) || policies.readsPrompt(server, virtual))) {
				catalogued.add(server);
			}
		}
		return Set.copyOf(catalogued);
	}

	/**
	 * A server whose catalogues the new snapshot starts or stops keeping: what was kept of them is forgotten (and a
	 * listing under way not kept), since no {@code list_changed} was heard for them while they were not kept.
	 */
	@Override
	public void replaced(Set<String> previous, Set<String> next) {
		Set<String> changed = new HashSet<>(previous);
		changed.addAll(next);
		changed.removeIf(server -> previous.contains(server) == next.contains(server));
		changed.forEach(server -> {
			catalogues.changed(server, TOOLS);
			catalogues.changed(server, PROMPTS);
		});
	}

	/** How a message may reach {@code server}: directly ({@code null}) and through each virtual server it is in. */
	private static List<String> throughOf(RelayProperties properties, String server) {
		List<String> through = new ArrayList<>();
		through.add(null);
		properties.virtualServers().forEach((id, virtual) -> {
			if (virtual != null && (virtual.members().contains(server) || virtual.members().contains("*"))) {
				through.add(id);
			}
		});
		return through;
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	// --- lists: each item decided as the request that would use it, its arguments unknown -----------------------------

	/** A list is sent: its answer is kept as published only if no list_changed comes meanwhile. */
	@Override
	public Mono<Outcome> interceptToolsList(ListRequest request) {
		if (governed(request.context()) != null) {
			catalogues.listing(request.context(), TOOLS);
		}
		return Outcome.proceed();
	}

	@Override
	public Mono<Outcome> interceptPromptsList(ListRequest request) {
		if (governed(request.context()) != null) {
			catalogues.listing(request.context(), PROMPTS);
		}
		return Outcome.proceed();
	}

	@Override
	public Mono<Outcome> interceptToolsListResponse(ToolsListResponse list) {
		return lists.tools(list);
	}

	@Override
	public Mono<Outcome> interceptPromptsListResponse(PromptsListResponse list) {
		return lists.prompts(list);
	}

	@Override
	public Mono<Outcome> interceptResourcesListResponse(ResourcesListResponse list) {
		return lists.resources(list, "uri");
	}

	@Override
	public Mono<Outcome> interceptResourceTemplatesListResponse(ResourceTemplatesListResponse list) {
		return lists.resources(list, "uriTemplate");
	}

	// --- requests: decided with their arguments; refused as what does not exist ------------------------------------

	@Override
	public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
		CallContext context = call.context();
		Policies policies = governed(context);
		if (policies == null) {
			return Outcome.proceed();
		}
		String tool = call.toolName(); // read in place: null unless params.name is a string
		if (tool == null) {
			return malformed("params.name must be a string");
		}
		if (relayOwn(context.server(), tool)) {
			return Outcome.proceed();
		}
		return named(policies, context, TOOLS, tool, policies.readsTool(context.server(), context.virtualServer()),
				annotations -> facts(context, "tools/call", false, tool, annotations, null, null)
					.withArguments(call),
				() -> refusals.unknownTool(context, tool));
	}

	@Override
	public Mono<Outcome> interceptPromptsGet(PromptsGetRequest request) {
		Policies policies = governed(request.context());
		if (policies == null) {
			return Outcome.proceed();
		}
		if (!named(request.json().path("params"), "name")) {
			return malformed("params.name must be a string");
		}
		return prompt(policies, request.context(), request.promptName(), request.arguments());
	}

	private Mono<Outcome> prompt(Policies policies, CallContext context, String prompt, Map<String, Object> arguments) {
		return named(policies, context, PROMPTS, prompt,
				policies.readsPrompt(context.server(), context.virtualServer()),
				any -> facts(context, "prompts/get", false, null, null, prompt, null).withArguments(arguments),
				() -> refusals.unknownPrompt(context, prompt));
	}

	/**
	 * A request naming {@code name} of the list {@code catalogue}, decided by the policies on the facts {@code facts}
	 * makes of what the server published of it. Where {@code published} (a rule reads what it names), a name the
	 * server did not publish to the caller's view is answered {@code unknown} too, and never goes upstream. Decided at
	 * once (a constant {@code Mono}, which the chain takes as it is, with no timer) when nothing has to be listed: no
	 * rule reads what it names, or the caller's view of the list is kept ({@link PublishedCatalogues#known}); else
	 * once the list is read.
	 */
	private Mono<Outcome> named(Policies policies, CallContext context, String catalogue, String name,
			boolean published, Function<Map<String, Object>, PolicyFacts> facts, Supplier<RejectError> unknown) {
		Optional<Map<String, Object>> known = published && name != null ? catalogues.known(context, catalogue, name)
				: NOTHING_PUBLISHED_NEEDED;
		if (known != null) {
			return decide(policies, catalogue, known, facts, unknown);
		}
		return catalogues.find(context, catalogue, name)
			.flatMap(found -> decide(policies, catalogue, found, facts, unknown))
			.onErrorResume(PublishedCatalogues.Unavailable.class, unavailable -> {
				String policy = policies.undecidable(context.server(), context.virtualServer(), catalogue.equals(TOOLS));
				return Outcome.reject(refusals.undecidable(context, catalogue, unavailable.why(), policy));
			});
	}

	/** What a request that needs nothing of the server's list decides from: the empty definition. */
	private static final Optional<Map<String, Object>> NOTHING_PUBLISHED_NEEDED = Optional.of(Map.of());

	/** The decision on a request naming what {@code found} says the server published of it (empty: nothing). */
	private Mono<Outcome> decide(Policies policies, String catalogue, Optional<Map<String, Object>> found,
			Function<Map<String, Object>, PolicyFacts> facts, Supplier<RejectError> unknown) {
		if (found.isEmpty()) {
			return Outcome.reject(unknown.get()
				.withLogReason(catalogue.equals(TOOLS) ? "unknown_tool" : "unknown_prompt", null));
		}
		PolicyDecision decision = policies.decide(facts.apply(found.get()));
		return decision.allowed() ? Outcome.proceed() : refuse(decision, unknown.get());
	}

	@Override
	public Mono<Outcome> interceptResourcesRead(ResourcesReadRequest request) {
		Policies policies = governed(request.context());
		if (policies == null) {
			return Outcome.proceed();
		}
		if (!named(request.json().path("params"), "uri")) {
			return malformed("params.uri must be a string");
		}
		return resource(policies, request.context(), request.uri());
	}

	/**
	 * {@code resources/subscribe}, {@code resources/unsubscribe} and {@code completion/complete}: each decided as the
	 * request that would use what it names ({@code resources/read} of the resource, {@code prompts/get} of the prompt),
	 * as a listed item is, so that what a caller may not read it may not subscribe to either.
	 */
	@Override
	public Mono<Outcome> interceptRequest(McpRequest request) {
		Policies policies = governed(request.context());
		if (policies == null) {
			return Outcome.proceed();
		}
		String method = request.method();
		JsonNode params = request.json().path("params");
		if ("resources/subscribe".equals(method) || "resources/unsubscribe".equals(method)) {
			return named(params, "uri") ? resource(policies, request.context(), text(params, "uri"))
					: malformed("params.uri must be a string");
		}
		if (request instanceof SubscriptionsListenRequest listen) {
			JsonNode uris = params.path("notifications").path("resourceSubscriptions");
			if (!uris.isMissingNode() && !uris.isArray()) {
				return malformed("params.notifications.resourceSubscriptions must be a list of strings");
			}
			for (JsonNode uri : uris) {
				if (!uri.isTextual()) {
					return malformed("params.notifications.resourceSubscriptions must be a list of strings");
				}
			}
			PolicySubscriptions.leaveOut(listen, uri -> readable(policies, listen.context(), uri));
			return Outcome.proceed();
		}
		if ("completion/complete".equals(method)) {
			JsonNode ref = params.path("ref");
			if ("ref/prompt".equals(text(ref, "type"))) {
				return named(ref, "name") ? prompt(policies, request.context(), text(ref, "name"), null)
						: malformed("params.ref.name must be a string");
			}
			if ("ref/resource".equals(text(ref, "type"))) {
				return named(ref, "uri") ? resource(policies, request.context(), text(ref, "uri"))
						: malformed("params.ref.uri must be a string");
			}
		}
		return Outcome.proceed();
	}

	private Mono<Outcome> resource(Policies policies, CallContext context, String uri) {
		PolicyDecision decision = policies.decide(facts(context, "resources/read", false, null, null, null, uri));
		return decision.allowed() ? Outcome.proceed() : refuse(decision, refusals.resourceNotFound(uri));
	}

	// --- the server's requests to the client: a refusal answers the server ------------------------------------------

	@Override
	public Mono<Outcome> interceptSamplingRequest(SamplingRequest request) {
		return serverRequest(request, "sampling/createMessage");
	}

	@Override
	public Mono<Outcome> interceptElicitationRequest(ElicitationRequest request) {
		return serverRequest(request, "elicitation/create");
	}

	@Override
	public Mono<Outcome> interceptRootsListRequest(RootsListRequest request) {
		return serverRequest(request, "roots/list");
	}

	private Mono<Outcome> serverRequest(ServerRequest request, String method) {
		Policies policies = governed(request.context());
		if (policies == null) {
			return Outcome.proceed();
		}
		PolicyDecision decision = policies.decide(facts(request.context(), method, true, null, null, null, null));
		return decision.allowed() ? Outcome.proceed() : refuse(decision,
				new RejectError(JsonRpcErrorCodes.POLICY_REJECTED, "The client does not take " + method + " here"));
	}

	/**
	 * A server saying its tools or prompts changed: what was kept of them is forgotten, whatever governs the stream it
	 * came on (a request on a later snapshot may be governed). An update of a resource the caller may not read is
	 * dropped, and a listen's acknowledgment names what the relay left out of it ({@link PolicySubscriptions}).
	 */
	@Override
	public Mono<Outcome> interceptServerNotification(ServerNotification notification) {
		if ("notifications/tools/list_changed".equals(notification.method())) {
			catalogues.changed(notification.context().server(), TOOLS);
		}
		else if ("notifications/prompts/list_changed".equals(notification.method())) {
			catalogues.changed(notification.context().server(), PROMPTS);
		}
		Policies policies = governed(notification.context());
		return policies == null ? Outcome.proceed()
				: PolicySubscriptions.heard(notification, uri -> readable(policies, notification.context(), uri));
	}

	/** Whether the caller may read the resource {@code uri} (counted as hidden when not). */
	private static boolean readable(Policies policies, CallContext context, String uri) {
		return policies.lists(facts(context, "resources/read", false, null, null, null, uri));
	}

	/** The policies of {@code context}'s request when any governs what it addresses; {@code null} when none does. */
	private Policies governed(CallContext context) {
		Policies policies = policiesOf.apply(context);
		return policies.governs(context.server(), context.virtualServer()) ? policies : null;
	}

	// ------------------------------------------------------------------------------------------------------------------

	private boolean relayOwn(String server, String tool) {
		for (RelayOwnTools own : relayOwn) {
			if (tool != null && own.isRelayOwn(server, tool)) {
				return true;
			}
		}
		return false;
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
	private static boolean named(JsonNode node, String field) {
		JsonNode value = node.get(field);
		return value != null && value.isTextual();
	}

	/**
	 * A request that names what it uses by something other than a string (an object, an array, a number, nothing)
	 * names nothing a policy can decide: refused as malformed (-32602) before any policy, so that it never goes
	 * upstream, where a lenient server might read it as a name (fails closed).
	 */
	private static Mono<Outcome> malformed(String problem) {
		return Outcome.reject(RejectError.invalidParams("Invalid params: " + problem));
	}

	static String text(JsonNode node, String field) {
		JsonNode value = node.get(field);
		return value != null && value.isTextual() ? value.textValue() : null;
	}

}
