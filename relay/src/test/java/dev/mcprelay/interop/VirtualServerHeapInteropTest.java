package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * What a virtual server keeps does not grow with its sessions: three members (TypeScript SDK servers with 400
 * resources each, every one with a 200-character description: about 120 KB of list per member) and 300 sessions, each
 * reading a resource (routed by the members' lists), leave the heap after a full collection within a few megabytes of
 * where it was. Each session's first read used to fetch every page of every member's lists and keep them per session
 * (150 sessions took the heap from 27 to 506 MB).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualServerHeapInteropTest {

	private static final List<String> MEMBERS = List.of("a", "b", "c");

	private static final int SESSIONS = 300;

	/** The most the heap may grow, after a full collection, over {@link #SESSIONS} sessions. */
	private static final long MAX_GROWTH = 48L * 1024 * 1024;

	private static final List<NodePeers.NodeServer> servers = new ArrayList<>();

	@LocalServerPort
	int port;

	@BeforeAll
	static void startServers() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		for (String member : MEMBERS) {
			servers.add(NodePeers.startServer("member-server.mjs", Map.of("RESOURCES", "400", "RESOURCE_PREFIX", member)));
		}
	}

	@AfterAll
	static void stopServers() throws Exception {
		for (NodePeers.NodeServer server : servers) {
			server.close();
		}
	}

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		for (int i = 0; i < MEMBERS.size(); i++) {
			int member = i;
			registry.add("mcp-relay.servers." + MEMBERS.get(i) + ".url", () -> servers.get(member).url());
		}
		registry.add("mcp-relay.virtual-servers.trio.members", () -> String.join(",", MEMBERS));
	}

	@Test
	void hundredsOfSessionsReadingResourcesLeaveTheHeapFlat() throws Exception {
		RawHttp http = new RawHttp(port);
		sessions(http, 0, 20);
		long before = usedAfterCollection();

		sessions(http, 20, SESSIONS);
		long after = usedAfterCollection();
		System.out.printf("Heap after a full collection: %d MB before, %d MB after %d sessions%n", before >> 20,
				after >> 20, SESSIONS);

		assertThat(after - before).as("heap growth over %d sessions: %d MB (from %d MB to %d MB)", SESSIONS,
				(after - before) >> 20, before >> 20, after >> 20).isLessThan(MAX_GROWTH);
	}

	/** Opens sessions {@code from} to {@code to}, four at a time, each reading one resource of one member. */
	private static void sessions(RawHttp http, int from, int to) throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(4);
		try {
			List<Future<JsonNode>> reads = new ArrayList<>();
			for (int n = from; n < to; n++) {
				String uri = "member://" + MEMBERS.get(n % MEMBERS.size()) + "/" + (1 + n % 400);
				reads.add(clients.submit(() -> {
					McpSession session = McpSession.open(http, "trio");
					List<JsonNode> answered = RawHttp.messagesOf(session.post(
							"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":\"" + uri + "\"}}"));
					return answered.get(answered.size() - 1);
				}));
			}
			for (Future<JsonNode> read : reads) {
				assertThat(read.get().at("/result/contents/0/text").asText()).as("%s", read.get()).startsWith("resource ");
			}
		}
		finally {
			clients.shutdownNow();
		}
	}

	private static long usedAfterCollection() throws InterruptedException {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(200);
		}
		return memory.getHeapMemoryUsage().getUsed();
	}

}
