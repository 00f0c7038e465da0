package dev.mcprelay.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Plain HTTP to the relay with the JDK client, for tests that look at status lines, headers and bytes rather than
 * at MCP semantics.
 */
public final class RawHttp {

	public static final String ACCEPT_BOTH = "application/json, text/event-stream";

	private static final ObjectMapper JSON = new ObjectMapper();

	private static final HttpClient CLIENT = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final int port;

	private final String[] headers;

	public RawHttp(int port) {
		this(port, new String[0]);
	}

	/** Requests that all carry {@code headers} (name, value, name, value, …): a caller's credential, for instance. */
	public RawHttp(int port, String... headers) {
		this.port = port;
		this.headers = headers.clone();
	}

	public HttpRequest.Builder post(String server, String body) {
		return request(server).header("Content-Type", "application/json")
			.header("Accept", ACCEPT_BOTH)
			.POST(HttpRequest.BodyPublishers.ofString(body));
	}

	public HttpRequest.Builder request(String server) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp/" + server))
			.timeout(Duration.ofSeconds(20));
		return headers.length == 0 ? request : request.headers(headers);
	}

	public HttpResponse<String> send(HttpRequest.Builder request) {
		try {
			return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Returns as soon as the response headers arrive; the body is read by the caller as it streams. */
	public HttpResponse<InputStream> open(HttpRequest.Builder request) {
		try {
			return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Everything {@code in} still holds, as UTF-8 text; closes it. */
	public static String readAll(InputStream in) {
		try (in) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	public static JsonNode json(String body) {
		try {
			return JSON.readTree(body);
		}
		catch (IOException ex) {
			throw new AssertionError("Not JSON: " + body, ex);
		}
	}

	/** The JSON of every event's data in an SSE body, in order. */
	public static List<JsonNode> sseData(String sseBody) {
		List<JsonNode> events = new ArrayList<>();
		for (String block : sseBody.split("\r?\n\r?\n")) {
			StringBuilder data = new StringBuilder();
			for (String line : block.split("\r?\n")) {
				if (line.startsWith("data:")) {
					data.append(line.substring(5).stripLeading());
				}
			}
			if (!data.isEmpty()) {
				events.add(json(data.toString()));
			}
		}
		return events;
	}

	/**
	 * The JSON-RPC messages of a response, whichever way they came: each SSE event's data, or the JSON body (each
	 * element of a batch array).
	 */
	public static List<JsonNode> messagesOf(HttpResponse<String> response) {
		String type = response.headers().firstValue("Content-Type").orElse("");
		List<JsonNode> bodies = type.startsWith("text/event-stream") ? sseData(response.body())
				: response.body().isEmpty() ? List.of() : List.of(json(response.body()));
		List<JsonNode> messages = new ArrayList<>();
		for (JsonNode body : bodies) {
			if (body.isArray()) {
				body.forEach(messages::add);
			}
			else {
				messages.add(body);
			}
		}
		return messages;
	}

	/** A tools/call request with this id. */
	public static String toolsCall(Object id, String tool) {
		String jsonId = id instanceof String ? "\"" + id + "\"" : String.valueOf(id);
		return "{\"jsonrpc\":\"2.0\",\"id\":" + jsonId + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":{}}}";
	}

}
