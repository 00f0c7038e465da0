package dev.mcprelay.interceptors;

import java.util.List;
import java.util.Map;

import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.ElicitationRequest;
import dev.mcprelay.api.ElicitationRequestInterceptor;
import dev.mcprelay.api.ListResponse;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.PromptsGetRequest;
import dev.mcprelay.api.PromptsGetRequestInterceptor;
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
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PolicyDecision;
import dev.mcprelay.policy.PolicyFacts;
import dev.mcprelay.policy.RelayOwnTools;
import dev.mcprelay.policy.ToolDefinitions;
import dev.mcprelay.proxy.UpstreamRegistry;
import reactor.core.publisher.Mono;

/**
 * The policies of {@code mcp-relay.policies} and each server's {@code tools} lists ({@link Policies}) on every path a
 * tool, prompt or resource is listed or used: what a caller may not use is left out of every list it would appear in
 * ({@code tools/list}, {@code prompts/list}, {@code resources/list}, {@code resources/templates/list}: JSON, POST
 * streams, the GET stream, the re-lists after {@code list_changed}; through a virtual server each member's list before
 * the merge), and a request naming it ({@code tools/call}, {@code prompts/get}, {@code resources/read},
 * {@code resources/subscribe}, {@code completion/complete}) is answered as one naming something that does not exist,
 * before anything goes upstream. A server's request to the client ({@code sampling/createMessage},
 * {@code elicitation/create}, {@code roots/list}) that a policy refuses is answered to the server.
 *
 * <p>It runs before interceptors of default order ({@link #ORDER}), so that they see only what the caller may use. A
 * server no policy governs (directly or through a virtual server) is not touched. Tools the relay offers itself
 * ({@link RelayOwnTools}: tool search's) are neither hidden nor refused here: what they answer is kept within the
 * caller's policies by the feature that offers them.
 */
@Component
public class PolicyEnforcement implements ToolsListResponseInterceptor, ToolsCallRequestInterceptor,
		PromptsListResponseInterceptor, PromptsGetRequestInterceptor, ResourcesListResponseInterceptor,
		ResourceTemplatesListResponseInterceptor, ResourcesReadRequestInterceptor, RequestInterceptor,
		SamplingRequestInterceptor, ElicitationRequestInterceptor, RootsListRequestInterceptor,
		ServerNotificationInterceptor, Ordered {

	/** Early, so that later interceptors never see what a caller may not use. */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

	/** MCP's code for a resource that does not exist. */
	private static final int RESOURCE_NOT_FOUND = -32002;

	private final Policies policies;

	private final ToolDefinitions definitions;

	private final UpstreamRegistry upstreams;

	private final Iterable<String> virtualServers;

	private final List<RelayOwnTools> relayOwn;

	public PolicyEnforcement(Policies policies, ToolDefinitions definitions, UpstreamRegistry upstreams,
			dev.mcprelay.config.RelayProperties properties, List<RelayOwnTools> relayOwn) {
		this.policies = policies;
		this.definitions = definitions;
		this.upstreams = upstreams;
		this.virtualServers = properties.virtualServers().keySet();
		this.relayOwn = List.copyOf(relayOwn);
	}

	@Override
	public String name() {
		return "policy";
	}

	@Override
	public boolean appliesTo(String server) {
		return policies.governsAny(server, virtualServers);
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	// --- lists: each item decided as the request that would use it, its arguments unknown -----------------------------

	@Override
	public Mono<Outcome> interceptToolsListResponse(ToolsListResponse list) {
		CallContext context = list.context();
		boolean keep = policies.needsToolDefinitions(context.server(), context.virtualServer());
		PolicyFacts listing = PolicyFacts.of(context, "tools/call", false);
		list.removeEntriesWhere(tool -> {
			if (keep) {
				definitions.published(context.server(), tool);
			}
			return !relayOwn(context.server(), text(tool, "name")) && !policies.lists(listing.forTool(tool));
		});
		return Outcome.proceed();
	}

	@Override
	public Mono<Outcome> interceptPromptsListResponse(PromptsListResponse list) {
		return filter(list, "prompts/get", "name", null);
	}

	@Override
	public Mono<Outcome> interceptResourcesListResponse(ResourcesListResponse list) {
		return filter(list, "resources/read", null, "uri");
	}

	@Override
	public Mono<Outcome> interceptResourceTemplatesListResponse(ResourceTemplatesListResponse list) {
		return filter(list, "resources/read", null, "uriTemplate");
	}

	private Mono<Outcome> filter(ListResponse<?> list, String method, String promptField, String uriField) {
		PolicyFacts listing = facts(list.context(), method, false, null, null, null, null);
		list.removeEntriesWhere(entry -> !policies.lists(listing.forItem(null, null,
				promptField == null ? null : text(entry, promptField), uriField == null ? null : text(entry, uriField))));
		return Outcome.proceed();
	}

	// --- requests: decided with their arguments; refused as what does not exist ------------------------------------

	@Override
	public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
		CallContext context = call.context();
		String tool = call.toolName();
		if (relayOwn(context.server(), tool)) {
			return Outcome.proceed();
		}
		Mono<Map<String, Object>> annotations = policies.needsToolDefinitions(context.server(), context.virtualServer())
				? definitions.annotations(context, tool, upstreams.find(context.server()).nonStreamingTimeout())
					.map(found -> (Map<String, Object>) found)
					.defaultIfEmpty(Map.of("\0unknown", true))
				: Mono.just(Map.of());
		return annotations.flatMap(known -> {
			Map<String, Object> published = known.containsKey("\0unknown") ? null : known;
			PolicyDecision decision = policies.decide(facts(context, "tools/call", false, tool, published, null, null)
				.withArguments(call.arguments()));
			return decision.allowed() ? Outcome.proceed()
					: refuse(decision, RejectError.invalidParams("Unknown tool: " + tool));
		});
	}

	@Override
	public Mono<Outcome> interceptPromptsGet(PromptsGetRequest request) {
		PolicyDecision decision = policies.decide(facts(request.context(), "prompts/get", false, null, null,
				request.promptName(), null).withArguments(request.arguments()));
		return decision.allowed() ? Outcome.proceed()
				: refuse(decision, RejectError.invalidParams("Unknown prompt: " + request.promptName()));
	}

	@Override
	public Mono<Outcome> interceptResourcesRead(ResourcesReadRequest request) {
		return resource(request.context(), "resources/read", request.uri());
	}

	/** {@code resources/subscribe} and {@code completion/complete}: the resource or prompt they name. */
	@Override
	public Mono<Outcome> interceptRequest(McpRequest request) {
		String method = request.method();
		JsonNode params = request.json().path("params");
		if ("resources/subscribe".equals(method) || "resources/unsubscribe".equals(method)) {
			return resource(request.context(), method, text(params, "uri"));
		}
		if ("completion/complete".equals(method)) {
			JsonNode ref = params.path("ref");
			if ("ref/prompt".equals(text(ref, "type"))) {
				String prompt = text(ref, "name");
				PolicyDecision decision = policies
					.decide(facts(request.context(), "prompts/get", false, null, null, prompt, null));
				return decision.allowed() ? Outcome.proceed()
						: refuse(decision, RejectError.invalidParams("Unknown prompt: " + prompt));
			}
			if ("ref/resource".equals(text(ref, "type"))) {
				return resource(request.context(), "resources/read", text(ref, "uri"));
			}
		}
		return Outcome.proceed();
	}

	private Mono<Outcome> resource(CallContext context, String method, String uri) {
		PolicyDecision decision = policies.decide(facts(context, method, false, null, null, null, uri));
		return decision.allowed() ? Outcome.proceed() : refuse(decision,
				new RejectError(RESOURCE_NOT_FOUND, "Resource not found", Map.of("uri", uri == null ? "" : uri)));
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
		PolicyDecision decision = policies.decide(facts(request.context(), method, true, null, null, null, null));
		return decision.allowed() ? Outcome.proceed() : refuse(decision,
				new RejectError(JsonRpcErrorCodes.POLICY_REJECTED, "The client does not take " + method + " here"));
	}

	/** A server saying its tools changed: the definitions kept of them are forgotten. */
	@Override
	public Mono<Outcome> interceptServerNotification(ServerNotification notification) {
		if ("notifications/tools/list_changed".equals(notification.method())) {
			definitions.changed(notification.context().server());
		}
		return Outcome.proceed();
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

	private static PolicyFacts facts(CallContext context, String method, boolean fromServer, String tool,
			Map<String, Object> annotations, String prompt, String resource) {
		return new PolicyFacts(context.caller(), context.server(), context.virtualServer(), method, fromServer, tool,
				annotations, prompt, resource, null, context.headers());
	}

	private static String text(JsonNode node, String field) {
		JsonNode value = node.get(field);
		return value != null && value.isTextual() ? value.textValue() : null;
	}

}
