package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.List;

import org.reactivestreams.Publisher;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The open streams a reload test holds while it edits the relay's configuration, and how it reads how they ended: a
 * call streaming its answer, held open by {@code SdkMcpUpstream}'s {@code progress} tool until its gate opens, and a
 * GET stream of a scripted server that answers the GET at once (the SDK's server sends a GET's headers only with its
 * first event) and holds it open ({@link #getStreamingServer}).
 */
final class HeldStreams {

	private HeldStreams() {
	}

	/** A {@code progress} call on a new session of {@code server}, its stream held open by the server. */
	static HttpResponse<InputStream> call(MountedRelay relay, RawHttp http, String server, int id) {
		return call(relay, McpSession.open(http, server), "progress", id);
	}

	/**
	 * A call of {@code tool} in {@code session}, its stream held open by the server: the {@code progress} tool, by the
	 * name the session knows it (a virtual server's prefixed one).
	 */
	static HttpResponse<InputStream> call(MountedRelay relay, McpSession session, String tool, int id) {
		HttpResponse<InputStream> call = relay.http().open(session.request("{\"jsonrpc\":\"2.0\",\"id\":" + id
				+ ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":{},\"_meta\":"
				+ "{\"progressToken\":\"p-" + id + "\"}}}"));
		assertThat(call.statusCode()).isEqualTo(200);
		return call;
	}

	/** A GET stream on a new session of {@code server} (a {@link #getStreamingServer}), open: its first event read. */
	static HttpResponse<InputStream> get(RawHttp http, String server) throws Exception {
		HttpResponse<InputStream> stream = getHeaders(http, server);
		assertThat(stream.body().read(new byte[16])).as("its first event").isPositive();
		return stream;
	}

	/** A GET stream on a new session of {@code server}, its headers read. */
	static HttpResponse<InputStream> getHeaders(RawHttp http, String server) {
		McpSession session = McpSession.open(http, server);
		HttpResponse<InputStream> stream = http.open(http.request(server)
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET());
		assertThat(stream.statusCode()).as("the GET stream").isEqualTo(200);
		return stream;
	}

	/** Reads {@code call} to its end: its last event is the error of request {@code id}, reason {@code reason}. */
	static void assertEndedWith(HttpResponse<InputStream> call, int id, String reason) {
		List<JsonNode> events = RawHttp.sseData(RawHttp.readAll(call.body()));
		assertThat(events).as("the call is answered with an error and ends: %s", events).last().satisfies(answer -> {
			assertThat(answer.path("id").asInt()).isEqualTo(id);
			assertThat(answer.at("/error/data/reason").asText()).isEqualTo(reason);
		});
	}

	/** Reads {@code call} to its end: its last event is the result of request {@code id}. */
	static void assertAnswered(HttpResponse<InputStream> call, int id) {
		List<JsonNode> events = RawHttp.sseData(RawHttp.readAll(call.body()));
		assertThat(events).as("the call runs to its answer: %s", events).last().satisfies(answer -> {
			assertThat(answer.path("id").asInt()).isEqualTo(id);
			assertThat(answer.has("result")).isTrue();
		});
	}

	/** A scripted MCP server that answers as {@link #getStreamingServer}, started. */
	static ScriptedUpstream getStreamingUpstream() {
		ScriptedUpstream streaming = new ScriptedUpstream();
		streaming.scriptWithBody(HeldStreams::getStreamingServer);
		return streaming;
	}

	/**
	 * A scripted MCP server ({@link ScriptedUpstream#scriptWithBody}): {@code initialize} answered, notifications
	 * taken, a GET answered at once and held open after one event.
	 */
	static Publisher<Void> getStreamingServer(HttpServerRequest request, HttpServerResponse response, String body) {
		if (request.method().name().equals("GET")) {
			return response.status(200)
				.header("Content-Type", "text/event-stream")
				.sendString(Flux.concat(Mono.just("id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
						+ "\"notifications/tools/list_changed\"}\n\n"), Flux.never()));
		}
		if (body.contains("\"initialize\"")) {
			return ScriptedUpstream.initializeAnswer(response, body, "streaming", "s-1");
		}
		return response.status(202).send();
	}

}
