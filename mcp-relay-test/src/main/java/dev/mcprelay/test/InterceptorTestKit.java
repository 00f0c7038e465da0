package dev.mcprelay.test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.api.ClientMessage;
import dev.mcprelay.api.ClientNotification;
import dev.mcprelay.api.ClientResponse;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.McpResponse;
import dev.mcprelay.api.MessageView;
import dev.mcprelay.api.RemoteMessage;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.ServerNotification;
import dev.mcprelay.api.ServerRequest;
import dev.mcprelay.api.UpstreamError;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.chain.MethodRoutes;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;

/**
 * Unit tests for interceptors, without Spring and without a network: builds the typed view a message meets at each
 * stage from its JSON, exactly as the relay builds it (the same parser and the same routing by method), and runs one
 * interceptor or a chain of them over it with the relay's own chain runner (the stage's allowed outcomes, the
 * per-interceptor timeout, a plain exception or a {@code null} answered as -32603).
 *
 * <pre>{@code
 * InterceptorTestKit kit = InterceptorTestKit.forServer("github").caller(Caller.apiKey("ci-bot")).header("X-Tenant", "acme");
 * TestResult result = kit.request(ToolsCallRequest.class, """
 *     {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{}}}""")
 *     .run(new TenantToolPolicy());
 * assertThat(result.forwarded()).contains("\"tenant\":\"acme\"");
 * }</pre>
 *
 * Each factory method makes a new {@link CallContext} (server, caller, headers, virtual server as set on the kit), so
 * views built by one kit share nothing but what the kit was given. A kit is immutable: {@link #caller},
 * {@link #header}, {@link #virtualServer} and {@link #timeout} return a new one.
 */
public final class InterceptorTestKit {

	/** Each interceptor's bound when none is given: the relay's default {@code timeouts.non-streaming}. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

	private final String server;

	private final Caller caller;

	private final Map<String, List<String>> headers;

	private final String virtualServer;

	private final Duration timeout;

	private InterceptorTestKit(String server, Caller caller, Map<String, List<String>> headers, String virtualServer,
			Duration timeout) {
		this.server = server;
		this.caller = caller;
		this.headers = headers;
		this.virtualServer = virtualServer;
		this.timeout = timeout;
	}

	/** A kit for messages to and from the server configured as {@code server}, from an anonymous caller. */
	public static InterceptorTestKit forServer(String server) {
		return new InterceptorTestKit(Objects.requireNonNull(server, "server"), Caller.ANONYMOUS, Map.of(), null,
				DEFAULT_TIMEOUT);
	}

	/** The caller the front door established ({@link Caller#apiKey}, {@link Caller#token}, {@link Caller#ANONYMOUS}). */
	public InterceptorTestKit caller(Caller caller) {
		return new InterceptorTestKit(server, Objects.requireNonNull(caller, "caller"), headers, virtualServer, timeout);
	}

	/** A client request header, added to the ones already given. */
	public InterceptorTestKit header(String name, String... values) {
		Map<String, List<String>> more = new LinkedHashMap<>(headers);
		List<String> all = new ArrayList<>(more.getOrDefault(name, List.of()));
		all.addAll(List.of(values));
		more.put(name, List.copyOf(all));
		return new InterceptorTestKit(server, caller, Map.copyOf(more), virtualServer, timeout);
	}

	/** The virtual server the client addressed, whose member the kit's server is. */
	public InterceptorTestKit virtualServer(String virtualServer) {
		return new InterceptorTestKit(server, caller, headers, virtualServer, timeout);
	}

	/** How long each interceptor may take before its message is refused, as the server's {@code non-streaming} says. */
	public InterceptorTestKit timeout(Duration timeout) {
		return new InterceptorTestKit(server, caller, headers, virtualServer, Objects.requireNonNull(timeout, "timeout"));
	}

	/** A fresh context for one client request, as every view of it shares it. */
	public CallContext context() {
		return new CallContext(server, RequestHeaders.of(headers), caller, Set.of(), virtualServer);
	}

	/** A message the client POSTed (request, notification or response), at the user-request stage. */
	public TestMessage<ClientMessage> userRequest(String json) {
		Parsed parsed = parse(json);
		return message(Stage.USER_REQUEST, new ClientMessage(context(), parsed.message()), parsed);
	}

	/** A GET ({@code "GET"}) or DELETE ({@code "DELETE"}) at the user-request stage: it carries no message. */
	public TestMessage<ClientMessage> userRequestWithoutBody(String httpMethod) {
		if (!"GET".equals(httpMethod) && !"DELETE".equals(httpMethod)) {
			throw new IllegalArgumentException("Only a GET or a DELETE carries no message, not " + httpMethod);
		}
		return new TestMessage<>(Stage.USER_REQUEST, new ClientMessage(context(), httpMethod), null, server, timeout);
	}

	/** A client request at its per-method stage, with the typed view its method has ({@code McpRequest} else). */
	public TestMessage<McpRequest> request(String json) {
		return request(McpRequest.class, json);
	}

	/**
	 * A client request at its per-method stage, as {@code view}: e.g. {@code ToolsCallRequest} for {@code tools/call},
	 * {@code ListRequest} for {@code tools/list}; fails when the relay would give that method another view.
	 */
	public <V extends McpRequest> TestMessage<V> request(Class<V> view, String json) {
		Parsed parsed = parse(json);
		requireKind(parsed, JsonRpcMessage.Kind.REQUEST, "a request");
		MethodRoutes.RequestRoute<?> route = MethodRoutes.request(parsed.message().method());
		McpRequest built = route.view().create(context(), parsed.message().node());
		return message(route.stage(), view, built, parsed);
	}

	/** A client notification at the client-notification stage. */
	public TestMessage<ClientNotification> clientNotification(String json) {
		Parsed parsed = parse(json);
		requireKind(parsed, JsonRpcMessage.Kind.NOTIFICATION, "a notification");
		return message(Stage.CLIENT_NOTIFICATION, new ClientNotification(context(), parsed.message().node()), parsed);
	}

	/**
	 * The client's answer {@code answerJson} to the server's request {@code serverRequestJson} (a
	 * {@code sampling/createMessage}, an {@code elicitation/create}, ...), at the client-response stage.
	 */
	public TestMessage<ClientResponse> clientResponse(String serverRequestJson, String answerJson) {
		ObjectNode serverRequest = parse(serverRequestJson).message().node();
		Parsed parsed = parse(answerJson);
		requireKind(parsed, JsonRpcMessage.Kind.RESPONSE, "a response");
		ClientResponse view = new ClientResponse(context(), parsed.message().node(),
				serverRequest.path("method").asText(null),
				serverRequest.get("params") instanceof ObjectNode params ? params : null);
		return message(Stage.CLIENT_RESPONSE, view, parsed);
	}

	/**
	 * A message from the upstream at the remote-message stage, answering (or sent while serving) {@code requestJson};
	 * {@code requestJson} may be {@code null} for a message on the GET stream.
	 *
	 * @param onStream whether it came as an SSE event rather than a JSON body
	 */
	public TestMessage<RemoteMessage> remoteMessage(String requestJson, String json, boolean onStream) {
		McpRequest request = requestJson == null ? null : request(requestJson).view();
		Parsed parsed = parse(json);
		return message(Stage.REMOTE_MESSAGE, new RemoteMessage(context(), parsed.message(), request, onStream), parsed);
	}

	/**
	 * The upstream's response {@code responseJson} to {@code requestJson}, at the response stage of the request's
	 * method, as {@code view}: e.g. {@code ToolsListResponse} for {@code tools/list}.
	 */
	public <V extends McpResponse> TestMessage<V> response(Class<V> view, String requestJson, String responseJson) {
		McpRequest request = request(requestJson).view();
		Parsed parsed = parse(responseJson);
		requireKind(parsed, JsonRpcMessage.Kind.RESPONSE, "a response");
		MethodRoutes.ResponseRoute<?> route = MethodRoutes.response(request.method());
		McpResponse built = route.view().create(request.context(), parsed.message().node(), request);
		return message(route.stage(), view, built, parsed);
	}

	/**
	 * A request of the server to the client ({@code sampling/createMessage}, {@code elicitation/create},
	 * {@code roots/list}, or any other) at its stage, as {@code view}.
	 */
	public <V extends ServerRequest> TestMessage<V> serverRequest(Class<V> view, String json, boolean onStream) {
		Parsed parsed = parse(json);
		requireKind(parsed, JsonRpcMessage.Kind.REQUEST, "a request");
		MethodRoutes.ServerRequestRoute<?> route = MethodRoutes.serverRequest(parsed.message().method());
		ServerRequest built = route.view().create(context(), parsed.message(), onStream);
		return message(route.stage(), view, built, parsed);
	}

	/** A notification of the server at the server-notification stage, with its typed view when MCP defines one. */
	public TestMessage<ServerNotification> serverNotification(String json, boolean onStream) {
		Parsed parsed = parse(json);
		requireKind(parsed, JsonRpcMessage.Kind.NOTIFICATION, "a notification");
		return message(Stage.SERVER_NOTIFICATION, ServerNotification.of(context(), parsed.message(), onStream), parsed);
	}

	/** The upstream's JSON-RPC error {@code errorJson} answering {@code requestJson}, at the error stage. */
	public TestMessage<UpstreamError> error(String requestJson, String errorJson) {
		McpRequest request = request(requestJson).view();
		Parsed parsed = parse(errorJson);
		if (!parsed.message().node().has("error")) {
			throw new IllegalArgumentException("An error response has an \"error\" member: " + errorJson);
		}
		return message(Stage.ERROR, new UpstreamError(request.context(), parsed.message().node(), request, null),
				parsed);
	}

	private <V extends MessageView> TestMessage<V> message(Stage<V> stage, V view, Parsed parsed) {
		return new TestMessage<>(stage, view, parsed.text(), server, timeout);
	}

	@SuppressWarnings("unchecked")
	private <V extends MessageView> TestMessage<V> message(Stage<?> stage, Class<V> type, MessageView built,
			Parsed parsed) {
		if (!type.isInstance(built)) {
			throw new IllegalArgumentException("The relay gives a " + built.getClass().getSimpleName() + " to method "
					+ built.method() + ", not a " + type.getSimpleName());
		}
		return new TestMessage<>((Stage<V>) stage, (V) built, parsed.text(), server, timeout);
	}

	private static void requireKind(Parsed parsed, JsonRpcMessage.Kind kind, String what) {
		if (parsed.message().kind() != kind) {
			throw new IllegalArgumentException("Not " + what + " but a " + parsed.message().kind().name().toLowerCase()
					+ ": " + parsed.text());
		}
	}

	/** One JSON-RPC message, parsed as the relay parses a body: the shape checked, numbers kept as written. */
	private static Parsed parse(String json) {
		Objects.requireNonNull(json, "json");
		try {
			JsonRpcPayload payload = JsonRpcParser.parse(json.getBytes(StandardCharsets.UTF_8));
			if (payload.batch() || payload.messages().size() != 1) {
				throw new IllegalArgumentException("One JSON-RPC message, not a batch: " + json);
			}
			return new Parsed(payload.messages().get(0), json);
		}
		catch (JsonRpcParseException ex) {
			throw new IllegalArgumentException("Not a JSON-RPC message (" + ex.getMessage() + "): " + json, ex);
		}
	}

	private record Parsed(JsonRpcMessage message, String text) {
	}

}
