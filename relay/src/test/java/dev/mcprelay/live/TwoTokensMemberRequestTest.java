package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.AsideAskingMcpUpstream;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Two tokens of one subject on one virtual session: the session's GET is opened with the narrower one, which may not
 * use alpha; the wider one's calls to alpha go on (review 44p). What alpha asks the client (sampling on its standalone
 * stream) cannot go to that GET: it is answered to alpha at once with the relay's error, so the wider token's call ends
 * with alpha's answer instead of waiting for alpha to give up, counted {@code get_may_not_read} (P-M2), whether the GET
 * was attached when alpha asked or came after. And when alpha restarted and the wider token's call joins it again, the
 * relay's notices of that go with the call's answer, not to the GET that may not read alpha (P-L2). Real tokens from a
 * real JWK Set, MCP Java SDK members in the JVM.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TwoTokensMemberRequestTest {

	static final String AUDIENCE = "mcp-relay-test";

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final SdkMcpUpstream BETA = new SdkMcpUpstream();

	static AsideAskingMcpUpstream alpha = new AsideAskingMcpUpstream(0);

	static final int ALPHA_PORT = alpha.port();

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		registry.add("mcp-relay.servers.alpha.url", () -> "http://127.0.0.1:" + ALPHA_PORT + "/mcp");
		registry.add("mcp-relay.servers.alpha.allowed-scopes[0]", () -> "a");
		registry.add("mcp-relay.servers.beta.url", () -> BETA.url("/mcp"));
		registry.add("mcp-relay.virtual-servers.v.members", () -> "alpha,beta");
	}

	@AfterAll
	static void stop() throws Exception {
		alpha.close();
		BETA.close();
		AUTH.close();
	}

	@Test
	void whatAMemberAsksAGetThatMayNotReadItIsAnsweredToTheMemberAtOnce() throws Exception {
		McpSession session = McpSession.open(token("mcp a"), "v", "{\"sampling\":{}}");
		double before = undelivered();
		try (OpenSse narrowGet = narrowGet(session)) {
			HttpResponse<String> answer = session.post(RawHttp.toolsCall(5, "alpha_ask-aside"));

			JsonNode result = result(answer, 5);
			assertThat(result.path("isError").asBoolean()).as("alpha's answer: %s", result).isTrue();
			assertThat(result.at("/content/0/text").asText()).as("what alpha got for its request")
				.contains("sampling failed")
				.contains("could not deliver this request to the client (get_may_not_read)");
			assertThat(methods(narrowGet)).as("nothing of alpha's on the narrower token's GET")
				.doesNotContain("sampling/createMessage");
			assertThat(undelivered()).isEqualTo(before + 1);
		}
	}

	@Test
	void whatAMemberAskedBeforeAGetThatMayNotReadItCameIsAnsweredToTheMember() throws Exception {
		McpSession session = McpSession.open(token("mcp a"), "v", "{\"sampling\":{}}");
		double before = undelivered();
		int asked = alpha.asked();
		CompletableFuture<HttpResponse<String>> call = CompletableFuture
			.supplyAsync(() -> session.post(RawHttp.toolsCall(6, "alpha_ask-aside")));
		// no GET yet: what alpha asks is held for the client's, which then comes with the narrower token
		Awaitility.await("alpha asked the client").atMost(Duration.ofSeconds(20)).until(() -> alpha.asked() > asked);
		try (OpenSse narrowGet = narrowGet(session)) {
			JsonNode result = result(call.get(), 6);
			assertThat(result.at("/content/0/text").asText()).as("what alpha got for its request: %s", result)
				.contains("could not deliver this request to the client (get_may_not_read)");
			assertThat(methods(narrowGet)).doesNotContain("sampling/createMessage");
			assertThat(undelivered()).isEqualTo(before + 1);
		}
	}

	@Test
	void theNoticesOfAMemberJoinedAgainGoWithTheCallThatJoinedItNotToAGetThatMayNotReadIt() throws Exception {
		McpSession session = McpSession.open(token("mcp a"), "v");
		try (OpenSse narrowGet = narrowGet(session)) {
			alpha.close();
			alpha = new AsideAskingMcpUpstream(ALPHA_PORT);

			List<JsonNode> messages = RawHttp.messagesOf(session.post(RawHttp.toolsCall(7, "alpha_echo")));

			assertThat(messages).as("the call's answer").anyMatch(message -> message.at("/params/data").asText()
				.contains("Member 'alpha' had lost its session"));
			assertThat(messages.get(messages.size() - 1).path("id").asInt()).isEqualTo(7);
			assertThat(narrowGet.received()).as("the narrower token's GET")
				.noneMatch(message -> message.toString().contains("Member 'alpha'"));
		}
	}

	/** The session's GET, opened with the narrower token, once it is attached (it carries beta's event). */
	private OpenSse narrowGet(McpSession session) throws InterruptedException {
		RawHttp narrow = token("mcp");
		OpenSse get = new OpenSse(narrow.open(narrow.request("v")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET()));
		BETA.notifyToolsListChanged();
		assertThat(get.next().path("method").asText()).as("beta's events reach the narrower token's GET")
			.isEqualTo("notifications/tools/list_changed");
		return get;
	}

	private static List<String> methods(OpenSse get) {
		return get.received().stream().map(message -> message.path("method").asText()).toList();
	}

	private static JsonNode result(HttpResponse<String> answer, int id) {
		return RawHttp.messagesOf(answer).stream()
			.filter(message -> message.path("id").asInt(-1) == id)
			.findFirst()
			.orElseThrow(() -> new AssertionError(answer.statusCode() + " " + answer.body()))
			.path("result");
	}

	private double undelivered() {
		Counter counter = registry.find(RelayMeters.VIRTUAL_UNDELIVERED)
			.tag(RelayMeters.REASON, "get_may_not_read")
			.tag(RelayMeters.SERVER, "alpha")
			.tag(RelayMeters.KIND, "request")
			.counter();
		return counter == null ? 0 : counter.count();
	}

	private RawHttp token(String scope) {
		return new RawHttp(port, "Authorization", "Bearer " + AUTH.token(AUDIENCE, "u1", scope, Map.of()));
	}

}
