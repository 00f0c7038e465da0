package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The 2025-only server of the TypeScript SDK 1.x that the version bridge's direction-2 tests run
 * ({@code interop/ask-server.mjs}): started on a port of its own, started again on the same port (a restart that
 * forgets every session), and read through its {@code /stats}; and a 2026-07-28 client's raw request to the relay.
 */
final class AskServer implements AutoCloseable {

	private static final ObjectMapper JSON = new ObjectMapper();

	/** The 2026-07-28 envelope a request of a client named {@code name} carries in its {@code _meta}. */
	static String meta(String name) {
		return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
				+ "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}},"
				+ "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"" + name + "\",\"version\":\"1\"}}";
	}

	private final int port;

	private final Map<String, String> environment;

	private NodePeers.NodeServer server;

	AskServer() throws IOException, InterruptedException {
		this(Map.of());
	}

	/** @param environment the server's switches ({@code GET404=1}: every GET answered 404, as by a POST-only server) */
	AskServer(Map<String, String> environment) throws IOException, InterruptedException {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		this.environment = environment;
		this.server = NodePeers.startServer("ask-server.mjs", environment);
		this.port = server.port();
	}

	String url() {
		return server.url();
	}

	/** Stops the server and starts it again on its port: it knows no session of before. */
	void restart() throws IOException, InterruptedException {
		server.close();
		server = NodePeers.startServer("ask-server.mjs", port, environment);
	}

	/** What the server saw ({@code /stats}). */
	JsonNode stats() throws IOException, InterruptedException {
		return JSON.readTree(get("/stats"));
	}

	/** Registers a tool in every session: each session's GET stream hears {@code tools/list_changed}. */
	void change() throws IOException, InterruptedException {
		get("/change");
	}

	/** The stats once {@code until} holds of them, failing after 60 s (a loaded machine: a bound, not a pace). */
	JsonNode awaitStats(String what, Predicate<JsonNode> until) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		JsonNode stats = stats();
		while (!until.test(stats)) {
			assertThat(System.nanoTime()).as("%s; the server saw %s", what, stats).isLessThan(deadline);
			Thread.sleep(50);
			stats = stats();
		}
		return stats;
	}

	/**
	 * A 2026-07-28 client's POST of {@code body} to the relay's server {@code serverId}, on a socket of its own that the
	 * caller closes to leave the request (2026-07-28's cancellation); nothing of the answer is read.
	 */
	static Socket post(int relayPort, String serverId, String body, String method, String name) throws IOException {
		Socket socket = new Socket(InetAddress.getLoopbackAddress(), relayPort);
		byte[] content = body.getBytes(StandardCharsets.UTF_8);
		String head = "POST /mcp/" + serverId + " HTTP/1.1\r\nHost: 127.0.0.1:" + relayPort
				+ "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
				+ "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: " + method + "\r\n"
				+ (name == null ? "" : "Mcp-Name: " + name + "\r\n") + "Content-Length: " + content.length + "\r\n\r\n";
		OutputStream out = socket.getOutputStream();
		out.write(head.getBytes(StandardCharsets.US_ASCII));
		out.write(content);
		out.flush();
		return socket;
	}

	private String get(String path) throws IOException, InterruptedException {
		return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.build(), HttpResponse.BodyHandlers.ofString()).body();
	}

	@Override
	public void close() throws InterruptedException {
		server.close();
	}

}
