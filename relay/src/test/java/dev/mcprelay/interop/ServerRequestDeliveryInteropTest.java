package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A member's request to the client on its standalone GET stream (sampling here) reaches the client whatever the order
 * in which the client's GET, the member's GET and the client's first call get where they go: the orderings that lost
 * such a request under load, made deterministic with delays. The client is the TypeScript SDK's
 * ({@code interop/sampling-scenario.mjs}: it opens its GET stream and calls a tool at once, and answers the member's
 * {@code sampling/createMessage}); the members are TypeScript SDK servers ({@code interop/member-server.mjs}) whose
 * {@code ask-model} tool asks for sampling on the standalone stream.
 * <ul>
 * <li>the client's GET reaches the relay well after its call (1.5 s, three times the relay's old grace): the relay
 * held each member's stream from the join and kept the request until the client's GET came;</li>
 * <li>a member takes its GET in only 1.5 s after the relay sent it: the call reaches it only once its stream is open
 * (it answered the GET), never before.</li>
 * </ul>
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServerRequestDeliveryInteropTest {

	private static final String DELAY = "1500";

	private static NodePeers.NodeServer members;

	private static NodePeers.NodeServer lateStreams;

	@LocalServerPort
	int port;

	@BeforeAll
	static void startServers() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		members = NodePeers.startServer("member-server.mjs");
		lateStreams = NodePeers.startServer("member-server.mjs", Map.of("GET_DELAY_MS", DELAY));
	}

	@AfterAll
	static void stopServers() throws Exception {
		if (members != null) {
			members.close();
		}
		if (lateStreams != null) {
			lateStreams.close();
		}
	}

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.one.url", () -> members.url());
		registry.add("mcp-relay.servers.two.url", () -> members.url());
		registry.add("mcp-relay.servers.three.url", () -> members.url());
		registry.add("mcp-relay.servers.late.url", () -> lateStreams.url());
		registry.add("mcp-relay.virtual-servers.trio.members", () -> "one,two,three");
		registry.add("mcp-relay.virtual-servers.slow.members", () -> "one,late");
	}

	@Test
	void aClientWhoseGetStreamComesAfterItsCallsGetsEveryMembersRequest() throws Exception {
		JsonNode outcome = new ObjectMapper().readTree(NodePeers.runClient(Map.of("GET_DELAY_MS", DELAY),
				"sampling-scenario.mjs", relay("trio"), "3", "3", "one_ask-model", "two_ask-model", "three_ask-model"));

		assertThat(outcome.get("lost").asInt()).as("requests lost: %s", outcome).isZero();
		assertThat(outcome.get("failed").asInt()).as("calls failed: %s", outcome).isZero();
		assertThat(outcome.get("answered").asInt()).as("every call answered: %s", outcome).isEqualTo(9);
	}

	@Test
	void aMemberThatTakesItsGetLateGetsTheCallOnlyOnceItsStreamIsOpen() throws Exception {
		JsonNode outcome = new ObjectMapper().readTree(NodePeers.runClient("sampling-scenario.mjs", relay("slow"), "3",
				"3", "late_ask-model", "one_ask-model"));

		assertThat(outcome.get("lost").asInt()).as("requests lost: %s", outcome).isZero();
		assertThat(outcome.get("failed").asInt()).as("calls failed: %s", outcome).isZero();
		assertThat(outcome.get("answered").asInt()).as("every call answered: %s", outcome).isEqualTo(6);
	}

	private String relay(String server) {
		return "http://127.0.0.1:" + port + "/mcp/" + server;
	}

}
