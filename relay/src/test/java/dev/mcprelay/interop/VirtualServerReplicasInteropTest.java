package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Two replicas sharing a virtual server's sessions (Redis), and a client whose GET stream lands on another replica
 * than the one its session began on (no affinity): a member's request to the client, sent on the stream the first
 * replica holds from the join, cannot reach the client's stream on the second. It is not lost silently: the first
 * replica counts it ({@code mcp_relay_virtual_messages_undelivered_total}, reason {@code no_client_stream}) and logs a
 * warning that names the cure (affinity on {@code Mcp-Session-Id}). The member is a TypeScript SDK server whose
 * {@code ask-model} tool asks for sampling on its standalone GET stream.
 */
class VirtualServerReplicasInteropTest {

	private static NodePeers.NodeServer member;

	private static TwoRelaysOverRedis relays;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		member = NodePeers.startServer("member-server.mjs");
		relays = TwoRelaysOverRedis.start("--mcp-relay.servers.one.url=" + member.url(),
				"--mcp-relay.virtual-servers.solo.members=one");
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
		if (member != null) {
			member.close();
		}
	}

	@Test
	void aServerRequestHeldOnAReplicaTheClientsStreamIsNotOnIsCountedAndLoggedNeverLostSilently() throws Exception {
		ConfigurableApplicationContext first = relays.first();
		RawHttp onFirst = new RawHttp(TwoRelaysOverRedis.port(first));
		RawHttp onSecond = new RawHttp(TwoRelaysOverRedis.port(relays.second()));
		int logsFrom = CapturedLogs.all().size();
		McpSession session = McpSession.open(onFirst, "solo", "{\"sampling\":{}}");
		HttpResponse<InputStream> stream = onSecond.open(onSecond.request("solo").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.GET());
		assertThat(stream.statusCode()).isEqualTo(200);

		CompletableFuture<HttpResponse<String>> call = CompletableFuture
			.supplyAsync(() -> session.post(RawHttp.toolsCall(1, "one_ask-model")));
		try {
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(undelivered(first))
				.as("the request held on the first replica, counted once it gave up on the client's stream")
				.isEqualTo(1));
			assertThat(CapturedLogs.since(logsFrom)).as("and logged, naming the cure")
				.anyMatch(line -> line.startsWith("WARN") && line.contains("could not be delivered (no_client_stream)")
						&& line.contains("affinity on Mcp-Session-Id"));
		}
		finally {
			call.cancel(true);
			stream.body().close();
		}
	}

	private static double undelivered(ConfigurableApplicationContext relay) {
		Counter counter = relay.getBean(MeterRegistry.class)
			.find(RelayMeters.VIRTUAL_UNDELIVERED)
			.tag(RelayMeters.SERVER, "one")
			.tag(RelayMeters.KIND, "request")
			.tag(RelayMeters.REASON, "no_client_stream")
			.counter();
		return counter == null ? 0 : counter.count();
	}

}
