package dev.mcprelay.demo;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.api.jsonrpc.JsonRpcMessages;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A small MCP server served by the relay itself at {@code /demo-upstream/mcp} under the {@code demo} profile, configured as
 * the upstream {@code demo} so that a first run has something to relay. Tools: {@code echo} (a JSON response) and
 * {@code countdown} (an SSE stream of progress notifications, then the result). Sessions live in memory. Not for
 * production: it exists to show the relay working.
 */
@Configuration(proxyBeanMethods = false)
@Profile("demo")
public class DemoMcpServer {

	/** Its first segment is no server id while the demo runs (the relay serves {@code /{server}/mcp} too). */
	public static final String PATH = "/" + DemoMcpServer.SEGMENT + "/mcp";

	/** The first segment of {@link #PATH}. */
	public static final String SEGMENT = "demo-upstream";

	private static final List<String> PROTOCOL_VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26");

	private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

	private final Set<String> sessions = ConcurrentHashMap.newKeySet();

	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	RouterFunction<ServerResponse> demoMcpRoutes() {
		return RouterFunctions.route()
			.POST(PATH, this::post)
			.GET(PATH, request -> ServerResponse.status(HttpStatus.METHOD_NOT_ALLOWED).build())
			.DELETE(PATH, this::delete)
			.build();
	}

	private Mono<ServerResponse> post(ServerRequest request) {
		return request.bodyToMono(byte[].class).defaultIfEmpty(new byte[0]).flatMap(body -> {
			JsonRpcPayload payload;
			try {
				payload = JsonRpcParser.parse(body);
			}
			catch (JsonRpcParseException ex) {
				return error(HttpStatus.BAD_REQUEST, null, ex.errorCode(), ex.getMessage());
			}
			if (payload.batch()) {
				return error(HttpStatus.BAD_REQUEST, null, JsonRpcErrorCodes.INVALID_REQUEST, "The demo takes no batches");
			}
			JsonRpcMessage message = payload.first();
			if ("initialize".equals(message.method())) {
				return initialize(message);
			}
			String session = request.headers().firstHeader("Mcp-Session-Id");
			if (session == null) {
				return error(HttpStatus.BAD_REQUEST, message.id(), JsonRpcErrorCodes.INVALID_REQUEST, "Missing Mcp-Session-Id");
			}
			if (!sessions.contains(session)) {
				return error(HttpStatus.NOT_FOUND, message.id(), JsonRpcErrorCodes.INVALID_REQUEST, "Session not found");
			}
			if (!message.isRequest()) {
				return ServerResponse.accepted().build();
			}
			return switch (message.method()) {
				case "ping" -> result(message.id(), NODES.objectNode());
				case "tools/list" -> result(message.id(), DemoTools.list());
				case "tools/call" -> callTool(message);
				default -> error(HttpStatus.OK, message.id(), JsonRpcErrorCodes.METHOD_NOT_FOUND,
						"Method not found: " + message.method());
			};
		});
	}

	private Mono<ServerResponse> initialize(JsonRpcMessage message) {
		String requested = message.node().path("params").path("protocolVersion").asText();
		String version = PROTOCOL_VERSIONS.contains(requested) ? requested : PROTOCOL_VERSIONS.get(0);
		ObjectNode result = NODES.objectNode().put("protocolVersion", version);
		result.putObject("capabilities").putObject("tools");
		result.putObject("serverInfo").put("name", "mcp-relay-demo").put("version", "1.0.0");
		result.put("instructions", "A demo server: try the echo and countdown tools.");
		String session = UUID.randomUUID().toString();
		sessions.add(session);
		return ServerResponse.ok()
			.header("Mcp-Session-Id", session)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(JsonRpcErrors.toBytes(JsonRpcMessages.result(message.id(), result)));
	}

	private Mono<ServerResponse> callTool(JsonRpcMessage message) {
		JsonNode params = message.node().path("params");
		JsonNode arguments = params.path("arguments");
		return switch (params.path("name").asText()) {
			case "echo" -> result(message.id(), DemoTools.text(arguments.path("message").asText(""), false));
			case "countdown" -> countdown(message.id(), params.path("_meta").get("progressToken"),
					Math.max(1, Math.min(arguments.path("from").asInt(3), 20)));
			default -> result(message.id(), DemoTools.text("Unknown tool: " + params.path("name").asText(), true));
		};
	}

	/** An SSE stream: one progress notification per second counted down, then the result. */
	private Mono<ServerResponse> countdown(JsonNode id, JsonNode progressToken, int from) {
		Flux<ServerSentEvent<String>> progress = Flux.interval(Duration.ZERO, Duration.ofMillis(500))
			.take(from)
			.filter(tick -> progressToken != null)
			.map(tick -> {
				ObjectNode notification = NODES.objectNode().put("jsonrpc", "2.0").put("method", "notifications/progress");
				ObjectNode p = notification.putObject("params");
				p.set("progressToken", progressToken);
				p.put("progress", tick + 1).put("total", from).put("message", (from - tick) + "...");
				return event(notification);
			});
		Mono<ServerSentEvent<String>> done = Mono.fromSupplier(
				() -> event(JsonRpcMessages.result(id, DemoTools.text("Lift-off after " + from + " steps", false))));
		return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM).body(progress.concatWith(done),
				ServerSentEvent.class);
	}

	private Mono<ServerResponse> delete(ServerRequest request) {
		String session = request.headers().firstHeader("Mcp-Session-Id");
		return session != null && sessions.remove(session) ? ServerResponse.ok().build()
				: ServerResponse.notFound().build();
	}

	private static ServerSentEvent<String> event(ObjectNode message) {
		return ServerSentEvent.builder(new String(JsonRpcErrors.toBytes(message)))
			.id(UUID.randomUUID().toString())
			.event("message")
			.build();
	}

	private static Mono<ServerResponse> result(JsonNode id, JsonNode result) {
		return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(JsonRpcErrors.toBytes(JsonRpcMessages.result(id, result)));
	}

	private static Mono<ServerResponse> error(HttpStatus status, JsonNode id, int code, String message) {
		return ServerResponse.status(status)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(JsonRpcErrors.toBytes(JsonRpcErrors.error(id, code, message, (JsonNode) null)));
	}

}
