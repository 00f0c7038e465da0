package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

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
 * Resuming a virtual server's merged GET stream is exact: three members (TypeScript SDK servers that keep every event
 * of their standalone stream, {@code interop/member-server.mjs}) send numbered log messages, about 1,500 a second
 * together, and a client that reads slower than that drops its stream after a random number of events, many times over,
 * and resumes each time with the id of the last event it got. Each member's messages, as the client received them
 * across every stream, are exactly what the member sent: no gap, no repeat, in order. An event id the relay made before
 * the merge could name another member's event still queued in the merge (resuming after it skipped that event) or one
 * delivered long before (resuming repeated what came since). The first stream is dropped only once the client has an
 * event of every member: before a member's first event, nothing names where its stream starts, for the relay as for a
 * client of the member itself.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MergedStreamResumptionInteropTest {

	private static final List<String> MEMBERS = List.of("a", "b", "c");

	/** Messages each member sends. */
	private static final int TOTAL = 1500;

	private static final int MIN_CUTS = 30;

	private static final java.util.concurrent.ScheduledExecutorService WATCHDOG = java.util.concurrent.Executors
		.newSingleThreadScheduledExecutor(runnable -> {
			Thread thread = new Thread(runnable, "resumption-watchdog");
			thread.setDaemon(true);
			return thread;
		});

	private static NodePeers.NodeServer server;

	@LocalServerPort
	int port;

	@BeforeAll
	static void startServer() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("member-server.mjs");
	}

	@AfterAll
	static void stopServer() throws Exception {
		if (server != null) {
			server.close();
		}
	}

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		MEMBERS.forEach(member -> registry.add("mcp-relay.servers." + member + ".url", () -> server.url()));
		registry.add("mcp-relay.virtual-servers.trio.members", () -> String.join(",", MEMBERS));
	}

	@Test
	void resumingFromAnyEventIdDeliversEveryLaterEventOfEveryMemberOnce() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "trio");
		Map<String, List<Integer>> received = new LinkedHashMap<>();
		MEMBERS.forEach(member -> received.put(member, new ArrayList<>()));
		// The first stream is open before the members start: nothing they send falls before it.
		Stream stream = new Stream(http, session, null);
		for (String member : MEMBERS) {
			session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"" + member
					+ "_tick\",\"arguments\":{\"label\":\"" + member + "\",\"perTick\":5,\"intervalMs\":10,\"total\":"
					+ TOTAL + "}}}");
		}

		Random random = new Random(42);
		int cuts = 0;
		long deadline = System.nanoTime() + 120_000_000_000L;
		// An event id names where each member's stream stopped; a member of which the client has received nothing
		// has no such place (its first event id is not known), so resuming it from the start needs the client to have
		// its first event: as for a client of the member itself. So the first stream reads one of every member's.
		while (received.values().stream().anyMatch(List::isEmpty) && System.nanoTime() < deadline) {
			stream.read(1, received);
		}
		while (!complete(received) && System.nanoTime() < deadline) {
			stream.read(1 + random.nextInt(80), received);
			stream.close();
			cuts++;
			stream = new Stream(http, session, stream.lastEventId);
		}
		stream.close();

		assertThat(cuts).as("the stream was dropped and resumed many times").isGreaterThanOrEqualTo(MIN_CUTS);
		for (String member : MEMBERS) {
			List<Integer> numbers = received.get(member);
			assertThat(numbers).as("member %s's messages as received across %d resumptions: %s", member, cuts,
					differences(numbers))
				.isEqualTo(IntStream.rangeClosed(1, TOTAL).boxed().toList());
		}
	}

	/** What {@code numbers} misses and repeats of 1..{@link #TOTAL}, and where it goes back. */
	private static String differences(List<Integer> numbers) {
		java.util.Set<Integer> seen = new java.util.HashSet<>();
		List<Integer> repeated = new ArrayList<>();
		int backwards = 0;
		for (int i = 0; i < numbers.size(); i++) {
			if (!seen.add(numbers.get(i))) {
				repeated.add(numbers.get(i));
			}
			if (i > 0 && numbers.get(i) <= numbers.get(i - 1)) {
				backwards++;
			}
		}
		List<Integer> missing = IntStream.rangeClosed(1, TOTAL).filter(n -> !seen.contains(n)).boxed().toList();
		return numbers.size() + " received, missing " + missing.size() + " " + head(missing) + ", repeated "
				+ repeated.size() + " " + head(repeated) + ", going back " + backwards + " times";
	}

	private static List<Integer> head(List<Integer> numbers) {
		return numbers.subList(0, Math.min(20, numbers.size()));
	}

	private static boolean complete(Map<String, List<Integer>> received) {
		// a member's last message is the last it sends: once each member's has come, nothing more will
		return received.values().stream().allMatch(numbers -> numbers.contains(TOTAL));
	}

	/** One GET stream of the session, read event by event, slowly: a client that falls behind the members. */
	private static final class Stream {

		private final InputStream body;

		private final BufferedReader lines;

		private String lastEventId;

		Stream(RawHttp http, McpSession session, String lastEventId) {
			this.lastEventId = lastEventId;
			HttpRequest.Builder request = http.request("trio").header("Accept", "text/event-stream")
				.header("Mcp-Session-Id", session.id())
				.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION);
			if (lastEventId != null) {
				request.header("Last-Event-ID", lastEventId);
			}
			HttpResponse<InputStream> response = http.open(request.GET());
			assertThat(response.statusCode()).isEqualTo(200);
			this.body = response.body();
			this.lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
		}

		/**
		 * Reads up to {@code count} log messages (fewer when the stream ends, or nothing comes for 15 s), noting each
		 * member's numbers.
		 */
		void read(int count, Map<String, List<Integer>> received) throws Exception {
			java.util.concurrent.ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> {
				body.close();
				return null;
			}, 15, java.util.concurrent.TimeUnit.SECONDS);
			try {
				readEvents(count, received);
			}
			catch (java.io.IOException stalled) {
				// nothing came for too long: the loop opens the next stream, and the test's deadline bounds it all
			}
			finally {
				watchdog.cancel(false);
			}
		}

		private void readEvents(int count, Map<String, List<Integer>> received) throws Exception {
			int read = 0;
			String id = null;
			StringBuilder data = new StringBuilder();
			String line;
			while (read < count && (line = lines.readLine()) != null) {
				if (line.startsWith("id:")) {
					id = line.substring(3).strip();
				}
				else if (line.startsWith("data:")) {
					data.append(line.substring(5).strip());
				}
				else if (line.isEmpty()) {
					if (id != null) {
						lastEventId = id;
					}
					if (!data.isEmpty()) {
						JsonNode message = RawHttp.json(data.toString());
						String[] text = message.path("params").path("data").asText("").split(" ");
						if (text.length == 2 && received.containsKey(text[0])) {
							received.get(text[0]).add(Integer.parseInt(text[1]));
							read++;
							if (read % 4 == 0) {
								Thread.sleep(1);
							}
						}
					}
					id = null;
					data.setLength(0);
				}
			}
		}

		void close() throws Exception {
			body.close();
		}

	}

}
