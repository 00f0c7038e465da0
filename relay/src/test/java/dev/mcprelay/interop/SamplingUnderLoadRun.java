package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Not part of the suite (its name matches none of Surefire's patterns): {@link SamplingOnGetStreamInteropTest}'s
 * fifty sessions over three members, run {@value #REPEATS} times while two processes keep the machine's cores busy,
 * the load under which CI once lost one sampling request in 150. Run it by name:
 * {@code ./mvnw -pl relay -am test -Dtest=SamplingUnderLoadRun -Dsurefire.failIfNoSpecifiedTests=false}; each run's
 * outcome is printed on a line starting {@code LOADRUN}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SamplingUnderLoadRun {

	private static final int REPEATS = 20;

	private static final int RUNS = 50;

	private static final int BUSY_PROCESSES = 2;

	private static NodePeers.NodeServer server;

	private static final List<Process> busy = new ArrayList<>();

	@LocalServerPort
	int port;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("sampling-server.mjs");
		for (int i = 0; i < BUSY_PROCESSES; i++) {
			busy.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
		}
	}

	@AfterAll
	static void stop() throws Exception {
		busy.forEach(Process::destroyForcibly);
		if (server != null) {
			server.close();
		}
	}

	@DynamicPropertySource
	static void upstream(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.sampling.url", () -> server.url());
		registry.add("mcp-relay.servers.second.url", () -> server.url());
		registry.add("mcp-relay.servers.third.url", () -> server.url());
		registry.add("mcp-relay.virtual-servers.three.members", () -> "sampling,second,third");
	}

	@RepeatedTest(REPEATS)
	void fiftyConcurrentSessionsOverThreeMembersLoseNoSamplingRequest() throws Exception {
		assertThat(busy).as("the busy processes still run").allMatch(Process::isAlive);
		long started = System.nanoTime();
		JsonNode relayed = new ObjectMapper().readTree(NodePeers.runClient("sampling-scenario.mjs",
				"http://127.0.0.1:" + port + "/mcp/three", String.valueOf(RUNS), "10", "sampling_ask-model",
				"second_ask-model", "third_ask-model"));
		System.out.printf("LOADRUN %s in %d ms%n", relayed, (System.nanoTime() - started) / 1_000_000);

		assertThat(relayed.get("lost").asInt()).as("sampling requests lost: %s", relayed).isZero();
		assertThat(relayed.get("failed").asInt()).as("calls failed: %s", relayed).isZero();
		assertThat(relayed.get("answered").asInt()).as("every call answered: %s", relayed).isEqualTo(3 * RUNS);
	}

}
