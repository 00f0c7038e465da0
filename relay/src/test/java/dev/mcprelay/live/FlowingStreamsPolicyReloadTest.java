package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A GET stream already flowing when a reload adds a policy that denies a resource (review 44e, F3): the server sent the
 * GET's headers at once, and a first update went through before the reload, while no interceptor of its server looked
 * at notifications; the update of the denied resource the server sends after the reload never reaches the client,
 * while an allowed one's does, on the pass-through GET ({@code /mcp/scripted}) and on a virtual server's merged GET
 * ({@code /mcp/v}) alike. The server is scripted: it sends a GET's headers as it answers and the updates when the test
 * says, which the SDK's servers do not (they send a stream's headers with its first event, after the reload, the case
 * {@link StreamsOpenedBeforeAPolicyReloadTest} covers).
 */
class FlowingStreamsPolicyReloadTest {

	static ScriptedUpstream scripted;

	static final AtomicInteger SESSIONS = new AtomicInteger();

	/** What the scripted server sends on the GET streams opened from now on. */
	static volatile Sinks.Many<String> events = Sinks.many().multicast().directBestEffort();

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("")).peer(() -> {
		scripted = new ScriptedUpstream();
		scripted.scriptWithBody(FlowingStreamsPolicyReloadTest::answer);
		return scripted;
	});

	@BeforeEach
	void freshStreams() {
		events = Sinks.many().multicast().directBestEffort();
	}

	@ParameterizedTest
	@ValueSource(strings = { "scripted", "v" })
	void anUpdateOfAResourceAReloadDeniedNeverReachesAStreamFlowingSinceBefore(String server) throws Exception {
		RawHttp http = live.http();
		McpSession session = McpSession.open(http, server);
		HttpResponse<InputStream> response = http.open(http.request(server)
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET());
		try (OpenSse get = new OpenSse(response)) {
			await("the GET at the server").until(() -> events.currentSubscriberCount() > 0);
			// the stream flows, with nothing that looks at notifications: both resources are heard
			updated("memo://two");
			assertThat(uriOf(get.next())).isEqualTo("memo://two");

			live.reload(config(NO_MEMO_TWO), ReloadOutcome.APPLIED);

			// in this order on the one stream: the denied resource's update first, then the allowed one's
			updated("memo://two");
			updated("memo://one");
			List<String> heard = new ArrayList<>();
			for (String uri = null; !"memo://one".equals(uri);) {
				uri = uriOf(get.next());
				heard.add(uri);
			}
			assertThat(heard).as("the allowed resource's update reaches the client, the denied one's never does")
				.containsExactly("memo://one");
		}
	}

	private static void updated(String uri) {
		events.tryEmitNext("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\""
				+ uri + "\"}}");
	}

	/** The resource an update names; what else the stream carries (a relay's notice) by its method. */
	private static String uriOf(JsonNode event) {
		return event.path("params").has("uri") ? event.path("params").path("uri").asText()
				: event.path("method").asText();
	}

	/** A policy that lets no caller read {@code memo://two}, so that none hears of it either. */
	private static final String NO_MEMO_TWO = "  policies:\n    - name: no-memo-two\n      servers: [\"*\"]\n"
			+ "      deny: 'mcp.method == \"resources/read\" && mcp.resource.uri == \"memo://two\"'\n";

	/**
	 * The scripted server: a session on {@code initialize}; on a GET, its headers and a comment at once, then
	 * {@link #events}; every other request answered with an empty result, every notification accepted.
	 */
	private static Publisher<Void> answer(HttpServerRequest request, HttpServerResponse response, String body) {
		if (request.method().name().equals("GET")) {
			return response.header("Content-Type", "text/event-stream")
				.sendString(Flux.concat(Mono.just(": open\n\n"), events.asFlux().map(data -> "data: " + data + "\n\n")));
		}
		JsonNode message = body.isEmpty() ? null : RawHttp.json(body);
		if (message == null || !message.has("id") || !message.has("method")) {
			return response.status(202).send();
		}
		if (message.path("method").asText().equals("initialize")) {
			return ScriptedUpstream.initializeAnswer(response, body, "scripted", "scripted-" + SESSIONS.incrementAndGet());
		}
		return response.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":{}}"));
	}

	/** scripted, alone and as the one member of v, then {@code policies}. */
	static String config(String policies) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ "    scripted:\n      url: " + scripted.url("/mcp") + "\n  virtual-servers:\n    v:\n"
				+ "      members: [scripted]\n" + policies;
	}

}
