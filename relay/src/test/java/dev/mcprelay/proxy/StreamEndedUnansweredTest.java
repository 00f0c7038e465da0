package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Mono;

/**
 * A POST stream that its upstream ends cleanly before the answer, with no event id to resume it from (what
 * server-everything does to a call in flight when its session is ended), is never relayed as a bare empty stream: each
 * request still unanswered gets a JSON-RPC error event, {@code upstream_stream_ended}, as a stream that broke does;
 * on a direct server and through a virtual server alike. A stream that gave event ids is left for the client to
 * resume. The upstream is scripted: no real server ends a stream so on demand.
 */
class StreamEndedUnansweredTest {

	private static final ScriptedUpstream UPSTREAM = new ScriptedUpstream();

	private static ConfigurableApplicationContext relay;

	private static RawHttp http;

	@BeforeAll
	static void start() {
		UPSTREAM.scriptWithBody((request, response, body) -> {
			if (body.contains("\"initialize\"")) {
				return response.status(200)
					.header("Content-Type", "application/json")
					.header("Mcp-Session-Id", "member-session")
					.sendString(Mono.just(body.replaceFirst("(?s)\"method\".*", "\"result\":{\"protocolVersion\":"
							+ "\"" + McpSession.PROTOCOL_VERSION + "\",\"capabilities\":{\"tools\":{}},\"serverInfo\":"
							+ "{\"name\":\"ends\",\"version\":\"1\"}}}")));
			}
			if (body.contains("\"tools/list\"")) {
				return response.status(200)
					.header("Content-Type", "application/json")
					.sendString(Mono.just(body.replaceFirst("(?s)\"method\".*",
							"\"result\":{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}}")));
			}
			if (body.contains("\"tools/call\"")) {
				// a comment, then a clean end; with "resumable" in the call, an event with an id first
				String events = body.contains("resumable") ? "id: 1\ndata: \n\n" : ": working\n\n";
				return response.status(200).header("Content-Type", "text/event-stream").sendString(Mono.just(events));
			}
			if ("GET".equals(request.method().name())) {
				return response.status(405).send();
			}
			return response.status(202).send();
		});
		relay = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.ends.url=" + UPSTREAM.url("/mcp"),
					"mcp-relay.virtual-servers.v.members=ends")
			.run();
		http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
	}

	@AfterAll
	static void stop() {
		relay.close();
		UPSTREAM.close();
	}

	@Test
	void aDirectPostStreamEndedBeforeItsAnswerAnswersTheRequestWithAnError() {
		HttpResponse<String> answer = http.send(http.post("ends", RawHttp.toolsCall("lost", "t")));

		assertEndedUnanswered(answer, "lost");
	}

	@Test
	void aMembersPostStreamEndedBeforeItsAnswerIsNeverAnEmptyAnswerOfTheVirtualServer() {
		McpSession session = McpSession.open(http, "v");

		HttpResponse<String> answer = session.post(RawHttp.toolsCall("lost-v", "ends_t"));

		assertEndedUnanswered(answer, "lost-v");
	}

	@Test
	void aStreamThatGaveEventIdsIsLeftForTheClientToResume() {
		HttpResponse<String> answer = http.send(http.post("ends", RawHttp.toolsCall("resumable", "t")));

		assertThat(answer.statusCode()).isEqualTo(200);
		assertThat(RawHttp.sseData(answer.body())).as(answer.body()).isEmpty();
	}

	private static void assertEndedUnanswered(HttpResponse<String> answer, String id) {
		assertThat(answer.statusCode()).isEqualTo(200);
		List<JsonNode> messages = RawHttp.messagesOf(answer);
		assertThat(messages).as(answer.body()).singleElement().satisfies(message -> {
			assertThat(message.path("id").asText()).isEqualTo(id);
			assertThat(message.at("/error/code").asInt()).isEqualTo(-32603);
			assertThat(message.at("/error/data/reason").asText()).isEqualTo("upstream_stream_ended");
		});
	}

}
