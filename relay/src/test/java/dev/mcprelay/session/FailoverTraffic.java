package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Sessions opened one after another through two relays over one store, alternately (virtual server {@code all}), for as
 * long as a failover test runs: what each relay answered 200 ({@link #confirmed}, with when), and what it refused, by
 * status and reason ({@link #refused}; an initialize not answered within the client's 5 s is counted there too, named,
 * rather than ending the traffic unsaid). {@link #lost} are the sessions answered 200 that either relay no longer
 * knows.
 */
final class FailoverTraffic {

	private final TwoRelaysOverRedis relays;

	private final ConcurrentLinkedQueue<String> confirmed = new ConcurrentLinkedQueue<>();

	private final Map<String, Long> confirmedAt = new ConcurrentHashMap<>();

	private final ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean stop = new AtomicBoolean();

	private final CompletableFuture<Void> traffic;

	private FailoverTraffic(TwoRelaysOverRedis relays) {
		this.relays = relays;
		this.traffic = CompletableFuture.runAsync(this::run);
	}

	/** Starts opening sessions through {@code relays}. */
	static FailoverTraffic start(TwoRelaysOverRedis relays) {
		return new FailoverTraffic(relays);
	}

	private void run() {
		for (int n = 0; !stop.get(); n++) {
			RawHttp http = new RawHttp(TwoRelaysOverRedis.port(n % 2 == 0 ? relays.first() : relays.second()));
			HttpResponse<String> initialized;
			try {
				initialized = http.send(http.post("all", McpSession.initialize(n)).timeout(Duration.ofSeconds(5)));
			}
			catch (IllegalStateException timedOut) {
				refused.add("no answer within 5 s: " + timedOut.getCause());
				continue;
			}
			if (initialized.statusCode() == 200) {
				initialized.headers().firstValue("Mcp-Session-Id").ifPresent(session -> {
					confirmedAt.put(session, System.nanoTime());
					confirmed.add(session);
				});
			}
			else {
				refused.add(initialized.statusCode() + " "
						+ RawHttp.json(initialized.body()).at("/error/data/reason").asText(initialized.body()));
			}
		}
	}

	/** Waits, at most 30 s, until {@code count} sessions were answered 200 in all. */
	void awaitSessions(int count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (confirmed.size() < count) {
			assertThat(System.nanoTime()).as("%d sessions opened within 30s", count).isLessThan(deadline);
			Thread.sleep(50);
		}
	}

	/** How many sessions were answered 200 so far. */
	int confirmedCount() {
		return confirmed.size();
	}

	/** Stops opening sessions, and waits for the last to be answered. */
	void stop() throws Exception {
		stop.set(true);
		traffic.get(30, TimeUnit.SECONDS);
	}

	/** The sessions answered 200. */
	List<String> confirmed() {
		return List.copyOf(confirmed);
	}

	/** When (System.nanoTime()) {@code session} was answered 200. */
	long confirmedAt(String session) {
		return confirmedAt.get(session);
	}

	/** What was not answered 200: status and reason, or that no answer came in time. */
	List<String> refused() {
		return List.copyOf(refused);
	}

	/** The sessions answered 200 that either relay no longer knows (a ping in them is not answered 200). */
	List<String> lost() {
		return confirmed.stream().filter(session -> !knownToBoth(session)).toList();
	}

	private boolean knownToBoth(String session) {
		for (ConfigurableApplicationContext relay : List.of(relays.first(), relays.second())) {
			RawHttp http = new RawHttp(TwoRelaysOverRedis.port(relay));
			HttpResponse<String> pinged = http.send(http.post("all", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")
				.header("Mcp-Session-Id", session)
				.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION));
			if (pinged.statusCode() != 200) {
				return false;
			}
		}
		return true;
	}

}
