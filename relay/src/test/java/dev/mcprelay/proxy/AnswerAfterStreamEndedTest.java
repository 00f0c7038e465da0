package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A server may end a POST's event stream before the answer and send the answer on the session's GET stream
 * (interceptors.md: the relay keeps a request its stream left unanswered for its answer elsewhere): the client gets
 * the answer once, on the GET, and no error for it on the POST. Failing such a request when its stream ended (as a
 * mend once did, for streams that gave no event id) handed the client an error, then the result under the same id,
 * for a tool that had run. The upstream is scripted: no real server ends a POST stream so on demand.
 */
class AnswerAfterStreamEndedTest {

	private static final ScriptedUpstream UPSTREAM = new ScriptedUpstream();

	/** The answers the upstream sends on its GET stream, once the call's POST stream has ended. */
	private static final Sinks.Many<String> LATER = Sinks.many().replay().all();

	private static ConfigurableApplicationContext relay;

	private static RawHttp http;

	@BeforeAll
	static void start() {
		UPSTREAM.scriptWithBody((request, response, body) -> {
			if ("GET".equals(request.method().name())) {
				return response.status(200).header("Content-Type", "text/event-stream")
					.sendString(Flux.concat(Flux.just(": open\n\n"), LATER.asFlux().map(data -> "data: " + data
							+ "\n\n")));
			}
			if (body.contains("\"initialize\"")) {
				return ScriptedUpstream.initializeAnswer(response, body, "ends", "ends-session");
			}
			if (body.contains("\"tools/call\"")) {
				// a comment, then a clean end with no event id; the answer follows on the GET stream
				return response.status(200)
					.header("Content-Type", "text/event-stream")
					.sendString(Mono.just(": working\n\n"))
					.then()
					.doOnSuccess(sent -> LATER.tryEmitNext("{\"jsonrpc\":\"2.0\",\"id\":\"later\",\"result\":"
							+ "{\"content\":[{\"type\":\"text\",\"text\":\"ran once\"}]}}"));
			}
			return response.status(202).send();
		});
		relay = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.ends.url=" + UPSTREAM.url("/mcp"))
			.run();
		http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
	}

	@AfterAll
	static void stop() {
		relay.close();
		UPSTREAM.close();
	}

	@Test
	void anAnswerTheServerSendsOnTheGetAfterEndingThePostStreamReachesTheClientOnceAndNoErrorBeforeIt()
			throws Exception {
		McpSession session = McpSession.open(http, "ends");
		HttpResponse<InputStream> get = http.open(http.request("ends").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.GET());
		assertThat(get.statusCode()).isEqualTo(200);

		HttpResponse<String> post = session.post(RawHttp.toolsCall("later", "t"));

		assertThat(post.statusCode()).isEqualTo(200);
		assertThat(RawHttp.sseData(post.body())).as("no answer, and no error, on the POST stream: %s", post.body())
			.isEmpty();
		try (BufferedReader events = new BufferedReader(new InputStreamReader(get.body(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = events.readLine()) != null && !line.startsWith("data:")) {
				// comments and ids before the answer
			}
			assertThat(line).as("the GET stream carries the answer").isNotNull();
			JsonNode answer = dev.mcprelay.jsonrpc.JsonRpcParser.mapper().readTree(line.substring(5).trim());
			assertThat(answer.path("id").asText()).isEqualTo("later");
			assertThat(answer.at("/result/content/0/text").asText()).isEqualTo("ran once");
		}
	}

}
