package dev.mcprelay.chain;

import java.util.Map;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.ElicitationRequest;
import dev.mcprelay.api.InitializeRequest;
import dev.mcprelay.api.InitializeResponse;
import dev.mcprelay.api.ListRequest;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.McpResponse;
import dev.mcprelay.api.PromptsGetRequest;
import dev.mcprelay.api.PromptsGetResponse;
import dev.mcprelay.api.PromptsListResponse;
import dev.mcprelay.api.ResourceTemplatesListResponse;
import dev.mcprelay.api.ResourcesListResponse;
import dev.mcprelay.api.ResourcesReadRequest;
import dev.mcprelay.api.ResourcesReadResponse;
import dev.mcprelay.api.RootsListRequest;
import dev.mcprelay.api.SamplingRequest;
import dev.mcprelay.api.ServerRequest;
import dev.mcprelay.api.SubscriptionsListenRequest;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallResponse;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * Which stage, and which typed view, a request or a response meets according to its method. A method not listed
 * meets the catch-all stage with the untyped view; {@code subscriptions/listen} meets it with a typed view of its own.
 * The relay and the test kit route with it alike.
 */
public final class MethodRoutes {

	/** A per-method request stage and how to build its view. */
	public record RequestRoute<V extends McpRequest>(Stage<V> stage, RequestViewFactory<V> view) {
	}

	/** A per-method response stage and how to build its view. */
	public record ResponseRoute<V extends McpResponse>(Stage<V> stage, ResponseViewFactory<V> view) {
	}

	/** A server-request stage and how to build its view. */
	public record ServerRequestRoute<V extends ServerRequest>(Stage<V> stage, ServerRequestViewFactory<V> view) {
	}

	@FunctionalInterface
	public interface ServerRequestViewFactory<V extends ServerRequest> {

		V create(CallContext context, JsonRpcMessage message, boolean onStream);

	}

	@FunctionalInterface
	public interface RequestViewFactory<V extends McpRequest> {

		V create(CallContext context, ObjectNode message);

	}

	@FunctionalInterface
	public interface ResponseViewFactory<V extends McpResponse> {

		V create(CallContext context, ObjectNode message, McpRequest request);

	}

	private static final RequestRoute<McpRequest> OTHER_REQUEST = new RequestRoute<>(Stage.OTHER_REQUEST,
			McpRequest::new);

	private static final Map<String, RequestRoute<?>> REQUESTS = Map.of(
			"initialize", new RequestRoute<>(Stage.INITIALIZE_REQUEST, InitializeRequest::new),
			"tools/call", new RequestRoute<>(Stage.TOOLS_CALL_REQUEST, ToolsCallRequest::new),
			"tools/list", new RequestRoute<>(Stage.TOOLS_LIST_REQUEST, ListRequest::new),
			"prompts/list", new RequestRoute<>(Stage.PROMPTS_LIST_REQUEST, ListRequest::new),
			"prompts/get", new RequestRoute<>(Stage.PROMPTS_GET_REQUEST, PromptsGetRequest::new),
			"resources/list", new RequestRoute<>(Stage.RESOURCES_LIST_REQUEST, ListRequest::new),
			"resources/templates/list", new RequestRoute<>(Stage.RESOURCE_TEMPLATES_LIST_REQUEST, ListRequest::new),
			"resources/read", new RequestRoute<>(Stage.RESOURCES_READ_REQUEST, ResourcesReadRequest::new),
			"subscriptions/listen", new RequestRoute<McpRequest>(Stage.OTHER_REQUEST, SubscriptionsListenRequest::new));

	private static final ResponseRoute<McpResponse> OTHER_RESPONSE = new ResponseRoute<>(Stage.OTHER_RESPONSE,
			McpResponse::new);

	private static final Map<String, ResponseRoute<?>> RESPONSES = Map.of(
			"prompts/get", new ResponseRoute<>(Stage.PROMPTS_GET_RESPONSE, PromptsGetResponse::new),
			"resources/templates/list", new ResponseRoute<>(Stage.RESOURCE_TEMPLATES_LIST_RESPONSE,
					ResourceTemplatesListResponse::new),
			"resources/read", new ResponseRoute<>(Stage.RESOURCES_READ_RESPONSE, ResourcesReadResponse::new),
			"initialize", new ResponseRoute<>(Stage.INITIALIZE_RESPONSE, InitializeResponse::new),
			"tools/call", new ResponseRoute<>(Stage.TOOLS_CALL_RESPONSE, ToolsCallResponse::new),
			"tools/list", new ResponseRoute<>(Stage.TOOLS_LIST_RESPONSE, ToolsListResponse::new),
			"prompts/list", new ResponseRoute<>(Stage.PROMPTS_LIST_RESPONSE, PromptsListResponse::new),
			"resources/list", new ResponseRoute<>(Stage.RESOURCES_LIST_RESPONSE, ResourcesListResponse::new));

	private static final ServerRequestRoute<ServerRequest> OTHER_SERVER_REQUEST = new ServerRequestRoute<>(
			Stage.OTHER_SERVER_REQUEST, ServerRequest::new);

	private static final Map<String, ServerRequestRoute<?>> SERVER_REQUESTS = Map.of(
			"sampling/createMessage", new ServerRequestRoute<>(Stage.SAMPLING_REQUEST, SamplingRequest::new),
			"elicitation/create", new ServerRequestRoute<>(Stage.ELICITATION_REQUEST, ElicitationRequest::new),
			"roots/list", new ServerRequestRoute<>(Stage.ROOTS_LIST_REQUEST, RootsListRequest::new));

	private MethodRoutes() {
	}

	public static ServerRequestRoute<?> serverRequest(String method) {
		return SERVER_REQUESTS.getOrDefault(method, OTHER_SERVER_REQUEST);
	}

	/** The request stage of {@code method}; the catch-all for any other method, or none known ({@code null}). */
	public static RequestRoute<?> request(String method) {
		return method == null ? OTHER_REQUEST : REQUESTS.getOrDefault(method, OTHER_REQUEST);
	}

	/** The response stage of {@code method}; the catch-all for any other method, or none known ({@code null}). */
	public static ResponseRoute<?> response(String method) {
		return method == null ? OTHER_RESPONSE : RESPONSES.getOrDefault(method, OTHER_RESPONSE);
	}

}
