package dev.mcprelay.testsupport;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import org.reactivestreams.Publisher;
import org.springframework.http.HttpHeaders;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A raw HTTP upstream on 127.0.0.1 whose answers a test scripts, for what no real MCP server does: malformed SSE,
 * stalls, huge bodies, odd statuses. It records each request (method, headers, body) and counts closed
 * connections, so a test can see what reached it and when the relay let go.
 */
public final class ScriptedUpstream implements AutoCloseable {

	/** One request as the upstream saw it. */
	public record Seen(String method, String uri, HttpHeaders headers, String body) {
	}

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	private final AtomicInteger closedConnections = new AtomicInteger();

	/** An answer that also reads the request's body. */
	@FunctionalInterface
	public interface Answer {

		Publisher<Void> answer(HttpServerRequest request, HttpServerResponse response, String body);

	}

	private volatile Answer script = (request, response, body) -> response.status(500)
		.sendString(Mono.just("no script"));

	private final DisposableServer server;

	public ScriptedUpstream() {
		this.server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.doOnConnection(connection -> connection.onDispose(closedConnections::incrementAndGet))
			.handle((request, response) -> request.receive()
				.aggregate()
				.asString(StandardCharsets.UTF_8)
				.defaultIfEmpty("")
				.flatMap(body -> {
					HttpHeaders headers = new HttpHeaders();
					request.requestHeaders().forEach(entry -> headers.add(entry.getKey(), entry.getValue()));
					seen.add(new Seen(request.method().name(), request.uri(), headers, body));
					return Mono.from(script.answer(request, response, body));
				}))
			.bindNow();
	}

	/** Answers every following request with this script. */
	public void script(BiFunction<HttpServerRequest, HttpServerResponse, Publisher<Void>> script) {
		this.script = (request, response, body) -> script.apply(request, response);
	}

	/** Answers every following request with this script, which also gets the request's body. */
	/**
	 * The answer of a minimal MCP server named {@code name} to the {@code initialize} in {@code body} (its id kept):
	 * tools only, the protocol version tests speak, the session {@code sessionId}; for scripts that play a whole server.
	 */
	public static Publisher<Void> initializeAnswer(HttpServerResponse response, String body, String name,
			String sessionId) {
		return response.status(200)
			.header("Content-Type", "application/json")
			.header("Mcp-Session-Id", sessionId)
			.sendString(Mono.just(body.replaceFirst("(?s)\"method\".*", "\"result\":{\"protocolVersion\":\""
					+ McpSession.PROTOCOL_VERSION + "\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\""
					+ name + "\",\"version\":\"1\"}}}")));
	}

	public void scriptWithBody(Answer script) {
		this.script = script;
	}

	public String url(String path) {
		return "http://127.0.0.1:" + server.port() + path;
	}

	public List<Seen> seen() {
		return List.copyOf(seen);
	}

	public Seen lastSeen() {
		return seen.get(seen.size() - 1);
	}

	public void clear() {
		seen.clear();
	}

	public int closedConnections() {
		return closedConnections.get();
	}

	@Override
	public void close() {
		server.disposeNow();
	}

}
