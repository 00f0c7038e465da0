package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A member's stream waits the first back-off again once it opened, through a relay (StreamBackoffTest has the rule
 * alone): the member answers its stream's GET with 503 three times in a row (waits of about 0.5, 1 and 2 s), then
 * opens it and ends it, then fails once more. That failure is waited for as a first one (about 0.5 s), not as the
 * fourth in a row (about 4 s): a short outage after a long one costs the client a short wait. The member is scripted:
 * no real server fails its GET on demand.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StreamBackoffThroughRelayTest {

	static final ScriptedUpstream MEMBER = new ScriptedUpstream();

	/** When each GET of the member's stream arrived (System.nanoTime). */
	static final List<Long> GETS = new CopyOnWriteArrayList<>();

	/** The answers to the member's GETs in turn: 503 before the stream opens, and once after. */
	static final List<Integer> STATUSES = List.of(503, 503, 503, 200, 503);

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.flaky.url", () -> MEMBER.url("/flaky"));
		registry.add("mcp-relay.virtual-servers.solo.members", () -> "flaky");
		MEMBER.scriptWithBody((request, response, body) -> {
			if (request.method().name().equals("GET")) {
				int attempt = GETS.size();
				GETS.add(System.nanoTime());
				int status = attempt < STATUSES.size() ? STATUSES.get(attempt) : 200;
				if (status != 200) {
					return response.status(status).send();
				}
				// the first stream that opens ends after one event; the one after the last failure stays open
				Flux<String> events = Flux.just("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
						+ "\"params\":{\"level\":\"info\",\"data\":\"open\"}}\n\n");
				return response.header("Content-Type", "text/event-stream")
					.sendString(attempt < STATUSES.size() ? events : events.concatWith(Mono.never()));
			}
			if (request.method().name().equals("DELETE")) {
				return response.status(200).send();
			}
			JsonNode message = RawHttp.json(body);
			if (!message.has("id")) {
				return response.status(202).send();
			}
			String result = "initialize".equals(message.path("method").asText())
					? "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
							+ "\"serverInfo\":{\"name\":\"flaky\",\"version\":\"1\"}}"
					: "{}";
			return response.header("Content-Type", "application/json")
				.header("Mcp-Session-Id", "session-flaky")
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":" + result + "}"));
		});
	}

	@AfterAll
	static void stop() {
		MEMBER.close();
	}

	@Test
	void aFailureAfterTheStreamOpenedWaitsTheFirstBackoffAgain() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "solo");
		HttpResponse<InputStream> stream = http.open(http.request("solo")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET());
		assertThat(stream.statusCode()).isEqualTo(200);

		// the GET after the last failure: the fifth failed, the sixth is the wait after it
		await().atMost(Duration.ofSeconds(30)).until(() -> GETS.size() > STATUSES.size());
		Duration grown = between(2, 3);
		Duration afterReset = between(4, 5);
		assertThat(grown).as("the third failure in a row waited about 2 s: the back-off grows")
			.isGreaterThanOrEqualTo(StreamBackoff.FIRST.multipliedBy(4).minus(StreamBackoff.FIRST));
		assertThat(afterReset).as("the failure after the stream opened waited about the first back-off, not 4 s")
			.isLessThan(StreamBackoff.FIRST.multipliedBy(8).minus(StreamBackoff.FIRST.multipliedBy(2)));
		stream.body().close();
	}

	/** The time between the member's GETs {@code from} and {@code to} (counted from 0). */
	private static Duration between(int from, int to) {
		return Duration.ofNanos(GETS.get(to) - GETS.get(from));
	}

}
