package dev.mcprelay.interceptors;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

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
import dev.mcprelay.chain.Stage;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.intercept.ConfiguredInterceptor;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PolicyCompiler;
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
 * refuses is answered to the server. The requests are decided by {@link PolicyRequests}, the lists by
 * {@link PolicyLists}; where the interceptor joins each server's chains, per snapshot, is {@link PolicyScope}'s.
 *
 * <p>It runs before interceptors of default order ({@link #ORDER}), so that they see only what the caller may use. The
 * policies are those of the configuration snapshot the request runs on ({@link PolicyCompiler}): an edit applies from
 * the next request, and a request no policy of its snapshot governs (its server, through its virtual server if any) is
 * let through untouched. What the server sends of its own accord (a notification, a request to the client) is decided
 * by the policies current when it is sent ({@link PolicyCompiler#asSent}), on a stream opened before a reload too. Tools the relay offers itself
 * ({@link RelayOwnTools}: tool search's) are neither hidden nor refused here: what they answer is kept within the
 * caller's policies by the feature that offers them.
 */
@Component
public class PolicyEnforcement implements ToolsListResponseInterceptor, ToolsCallRequestInterceptor,
		PromptsListResponseInterceptor, PromptsGetRequestInterceptor, ResourcesListResponseInterceptor,
		ResourceTemplatesListResponseInterceptor, ResourcesReadRequestInterceptor, RequestInterceptor,
		SamplingRequestInterceptor, ElicitationRequestInterceptor, RootsListRequestInterceptor,
		ServerNotificationInterceptor, ToolsListRequestInterceptor, PromptsListRequestInterceptor, ConfiguredInterceptor,
		Ordered {

	/** Early, so that later interceptors never see what a caller may not use. */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

	private static final String TOOLS = PolicyLists.TOOLS;

	private static final String PROMPTS = PolicyLists.PROMPTS;

	/** Where this interceptor has work in each snapshot; {@code null} for the unit tests' fixed policies. */
	private final PolicyScope scope;

	/** The policies a request runs on: its snapshot's. */
	private final Function<CallContext, Policies> policiesOf;

	/** The policies what the server sends of its own accord is decided by: those current when it is sent. */
	private final Function<CallContext, Policies> sentPoliciesOf;

	private final PublishedCatalogues catalogues;

	private final PolicyRequests requests;

	private final PolicyLists lists;

	private final List<RelayOwnTools> relayOwn;

	/**
	 * The enforcement of the policies of each request's configuration snapshot ({@link PolicyCompiler#of(CallContext)}),
	 * where {@code scope} says it has work, its refusals in the words of that snapshot's virtual servers.
	 */
	@Autowired
	public PolicyEnforcement(PolicyCompiler compiler, PolicyScope scope, ObjectProvider<LiveConfiguration> live,
			List<RelayOwnTools> relayOwn) {
		this(scope, compiler::of, compiler::asSent, scope == null ? null : scope.catalogues(), context -> {
			ConfigurationSnapshot snapshot = CallConfiguration.of(context);
			return (snapshot != null ? snapshot : live.getObject().current()).properties();
		}, relayOwn);
	}

	/** The enforcement of fixed {@code policies} and {@code properties}, whatever a call's snapshot: for unit tests. */
	public PolicyEnforcement(Policies policies, PublishedCatalogues catalogues, RelayProperties properties,
			List<RelayOwnTools> relayOwn) {
		this(null, context -> policies, context -> policies, catalogues, context -> properties, relayOwn);
	}

	private PolicyEnforcement(PolicyScope scope, Function<CallContext, Policies> policiesOf,
			Function<CallContext, Policies> sentPoliciesOf, PublishedCatalogues catalogues,
			Function<CallContext, RelayProperties> propertiesOf, List<RelayOwnTools> relayOwn) {
		this.scope = scope;
		this.policiesOf = policiesOf;
		this.sentPoliciesOf = sentPoliciesOf;
		this.catalogues = catalogues;
		this.requests = new PolicyRequests(catalogues, new PolicyRefusals(propertiesOf));
		this.relayOwn = List.copyOf(relayOwn);
		this.lists = new PolicyLists(policiesOf, catalogues, this::relayOwn);
	}

	@Override
	public String name() {
		return "policy";
	}

	/** Where a policy of the snapshot gives this interceptor work ({@link PolicyScope#appliesTo}). */
	@Override
	public boolean appliesTo(SnapshotCompilation compilation, String server, Stage<?> stage) {
		return scope.appliesTo(compilation, server, stage);
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

	// --- requests: decided with their arguments; refused as what does not exist ({@link PolicyRequests}) -----------

	@Override
	public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
		Policies policies = governed(call.context());
		if (policies == null) {
			return Outcome.proceed();
		}
		String tool = call.toolName(); // read in place: null unless params.name is a string
		if (tool == null) {
			return PolicyRequests.malformed("params.name must be a string");
		}
		return relayOwn(call.context(), tool) ? Outcome.proceed() : requests.toolsCall(policies, call, tool);
	}

	@Override
	public Mono<Outcome> interceptPromptsGet(PromptsGetRequest request) {
		Policies policies = governed(request.context());
		if (policies == null) {
			return Outcome.proceed();
		}
		String prompt = request.promptName(); // read in place: null unless params.name is a string
		if (prompt == null) {
			return PolicyRequests.malformed("params.name must be a string");
		}
		return requests.prompt(policies, request.context(), prompt, request.arguments());
	}

	@Override
	public Mono<Outcome> interceptResourcesRead(ResourcesReadRequest request) {
		Policies policies = governed(request.context());
		if (policies == null) {
			return Outcome.proceed();
		}
		String uri = request.uri(); // read in place: null unless params.uri is a string
		if (uri == null) {
			return PolicyRequests.malformed("params.uri must be a string");
		}
		return requests.resource(policies, request.context(), uri);
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
		Map<String, Object> params = request.paramsView(); // read in place, read-only
		if ("resources/subscribe".equals(method) || "resources/unsubscribe".equals(method)) {
			return PolicyRequests.named(params, "uri")
					? requests.resource(policies, request.context(), PolicyRequests.text(params, "uri"))
					: PolicyRequests.malformed("params.uri must be a string");
		}
		if (request instanceof SubscriptionsListenRequest listen) {
			Map<String, Object> notifications = PolicyRequests.object(params, "notifications");
			Object uris = notifications.get("resourceSubscriptions");
			if (notifications.containsKey("resourceSubscriptions") && !(uris instanceof List<?>)) {
				return PolicyRequests.malformed("params.notifications.resourceSubscriptions must be a list of strings");
			}
			if (uris instanceof List<?> list) {
				for (Object uri : list) {
					if (!(uri instanceof String)) {
						return PolicyRequests
							.malformed("params.notifications.resourceSubscriptions must be a list of strings");
					}
				}
			}
			PolicySubscriptions.leaveOut(listen, uri -> PolicyRequests.readable(policies, listen.context(), uri));
			return Outcome.proceed();
		}
		if ("completion/complete".equals(method)) {
			Map<String, Object> ref = PolicyRequests.object(params, "ref");
			if ("ref/prompt".equals(PolicyRequests.text(ref, "type"))) {
				return PolicyRequests.named(ref, "name")
						? requests.prompt(policies, request.context(), PolicyRequests.text(ref, "name"), null)
						: PolicyRequests.malformed("params.ref.name must be a string");
			}
			if ("ref/resource".equals(PolicyRequests.text(ref, "type"))) {
				return PolicyRequests.named(ref, "uri")
						? requests.resource(policies, request.context(), PolicyRequests.text(ref, "uri"))
						: PolicyRequests.malformed("params.ref.uri must be a string");
			}
		}
		return Outcome.proceed();
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
		Policies policies = governed(request.context(), sentPoliciesOf);
		return policies == null ? Outcome.proceed() : PolicyRequests.serverRequest(policies, request.context(), method);
	}

	/**
	 * An update of a resource the caller may not read is dropped, and a listen's acknowledgment names what the relay
	 * left out of it ({@link PolicySubscriptions}). A server saying its tools or prompts changed is heard by the relay
	 * itself on every stream, whatever chain it began on, and the catalogues forget what they kept of them there
	 * ({@code ListChangedWatch}, the one listener), not here.
	 */
	@Override
	public Mono<Outcome> interceptServerNotification(ServerNotification notification) {
		Policies policies = governed(notification.context(), sentPoliciesOf);
		return policies == null ? Outcome.proceed() : PolicySubscriptions.heard(notification,
				uri -> PolicyRequests.readable(policies, notification.context(), uri));
	}

	/** The policies of {@code context}'s request when any governs what it addresses; {@code null} when none does. */
	private Policies governed(CallContext context) {
		return governed(context, policiesOf);
	}

	/** The policies {@code policiesOf} gives {@code context} when any governs what it addresses; else {@code null}. */
	private static Policies governed(CallContext context, Function<CallContext, Policies> policiesOf) {
		Policies policies = policiesOf.apply(context);
		return policies.governs(context.server(), context.virtualServer()) ? policies : null;
	}

	/**
	 * Whether {@code tool} of the server {@code context} addresses is the relay's own, as the request's snapshot says
	 * (a call begun before a reload that turns tool search on is the server's tool, decided by the policies).
	 */
	private boolean relayOwn(CallContext context, String tool) {
		ConfigurationSnapshot snapshot = CallConfiguration.of(context);
		for (RelayOwnTools own : relayOwn) {
			if (tool != null && own.isRelayOwn(snapshot, context.server(), tool)) {
				return true;
			}
		}
		return false;
	}

}
