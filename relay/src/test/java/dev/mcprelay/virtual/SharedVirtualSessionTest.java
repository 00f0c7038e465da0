package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Two relays over one real Redis server share a virtual server's sessions: a session opened on one is listed, called
 * and ended on the other. With Redis gone, the virtual server answers 503 with a clear error, and a server addressed
 * directly is unaffected.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SharedVirtualSessionTest {

	static TwoRelaysOverRedis relays;

	@BeforeAll
	static void start() throws Exception {
		relays = TwoRelaysOverRedis.start("--mcp-relay.servers.alpha.url=" + TestUpstreams.SDK.url("/mcp"),
				"--mcp-relay.servers.beta.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.virtual-servers.all.members=alpha,beta");
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
	}

	@Test
	@Order(1)
	void aSessionOpenedOnOneReplicaIsContinuedAndEndedOnTheOther() {
		ConfigurableApplicationContext first = relays.first();
		ConfigurableApplicationContext second = relays.second();
		String session = McpSession.open(new RawHttp(TwoRelaysOverRedis.port(first)), "all").id();

		JsonNode listed = last(post(second, "all", session, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));
		assertThat(listed.at("/result/tools").findValuesAsText("name")).contains("alpha_echo", "beta_echo");
		for (String tool : List.of("alpha_echo", "beta_echo")) {
			JsonNode called = last(post(second, "all", session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
					+ "\"params\":{\"name\":\"" + tool + "\",\"arguments\":{\"message\":\"across replicas\"}}}"));
			assertThat(called.at("/result/content/0/text").asText()).as(tool).isEqualTo("across replicas");
		}

		RawHttp onSecond = new RawHttp(TwoRelaysOverRedis.port(second));
		assertThat(onSecond.send(onSecond.request("all").DELETE().header("Mcp-Session-Id", session)).statusCode())
			.isEqualTo(200);
		assertThat(post(first, "all", session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}").statusCode())
			.as("ended on the other replica").isEqualTo(404);
	}

	@Test
	@Order(2)
	void withRedisGoneTheVirtualServerAnswers503AndDirectServersGoOn() throws Exception {
		ConfigurableApplicationContext first = relays.first();
		McpSession direct = McpSession.open(new RawHttp(TwoRelaysOverRedis.port(first)), "alpha");
		String session = McpSession.open(new RawHttp(TwoRelaysOverRedis.port(first)), "all").id();
		relays.redis().kill();

		HttpResponse<String> unavailable = post(first, "all", session, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}");
		assertThat(unavailable.statusCode()).isEqualTo(503);
		assertThat(RawHttp.json(unavailable.body()).at("/error/data/reason").asText())
			.isEqualTo("session_store_unavailable");
		RawHttp http = new RawHttp(TwoRelaysOverRedis.port(first));
		HttpResponse<String> opening = http.send(http.post("all", McpSession.initialize(5)));
		assertThat(opening.statusCode()).as("a new session cannot be kept either").isEqualTo(503);

		JsonNode called = last(direct.post(RawHttp.toolsCall(6, "echo")));
		assertThat(called.has("result")).as("a server addressed directly needs no store").isTrue();
		assertThat(first.getBean(io.micrometer.core.instrument.MeterRegistry.class)
			.get(dev.mcprelay.metrics.RelayMeters.SESSION_STORE_ERRORS)
			.counter()
			.count()).as("the store's failures are counted").isGreaterThanOrEqualTo(2);
	}

	private static JsonNode last(HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	private static HttpResponse<String> post(ConfigurableApplicationContext relay, String server, String session,
			String body) {
		RawHttp http = new RawHttp(TwoRelaysOverRedis.port(relay));
		return http.send(http.post(server, body).header("Mcp-Session-Id", session)
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION));
	}

}
