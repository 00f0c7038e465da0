package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SharedRedis;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * A failover of the Redis the relays share is no outage: while the master that holds the sessions is lost (killed
 * with SIGKILL, or hung with SIGSTOP: its kernel still accepts connections, and nothing answers) and its replica
 * promoted, every request is answered within {@link #BOUND} (the store's own bound is 1 s per call):
 * those that need the store with their answer or 503 {@code session_store_unavailable}, a rate limit by its
 * {@code on-store-failure} (fail-open admits, fail-closed refuses with 503 {@code rate_limit_unavailable}); once the
 * new master is named, each kind of request succeeds again within {@link #RECOVERY}; and the sessions written before
 * (and replicated, as Redis's asynchronous replication allows: the test waits for the replica to acknowledge them)
 * are there on both relays, with what their searches exposed. One subclass per topology kills its master. In the
 * longer tier ({@code -Pscale}): a failover takes seconds, the deployment more to start.
 */
@Tag("scale")
abstract class StoreFailoverContract {

	/** The longest any request may take during the failover: a few store calls of 1 s each, and the upstream's. */
	static final Duration BOUND = Duration.ofSeconds(5);

	/** How soon after the new master is named every kind of request succeeds again. */
	static final Duration RECOVERY = Duration.ofSeconds(10);

	/**
	 * How long the test's traffic may take to give {@code window} answers of every kind after the promotion: a
	 * machine that slow has stalled, whatever the relays do.
	 */
	static final Duration TRAFFIC_STALLED = Duration.ofSeconds(60);

	static TwoRelaysOverRedis relays;

	/** What a kind of request a client keeps sending got back, and how long it took. */
	record Answer(String kind, long atNanos, int status, String reason, long millis) {
	}

	/** Starts two relays over {@code redis}: a virtual server, a tool-search server, a fail-open and a fail-closed rule. */
	static void startRelaysOver(SharedRedis redis) throws Exception {
		String mcp = TestUpstreams.SDK.url("/mcp");
		String stateless = TestUpstreams.SDK.url("/stateless");
		relays = TwoRelaysOverRedis.over(redis, "--mcp-relay.servers.searching.url=" + mcp,
				"--mcp-relay.servers.searching.tool-search.enabled=true", "--mcp-relay.servers.alpha.url=" + mcp,
				"--mcp-relay.servers.beta.url=" + stateless, "--mcp-relay.servers.open.url=" + stateless,
				"--mcp-relay.servers.closed.url=" + stateless, "--mcp-relay.virtual-servers.all.members=alpha,beta",
				"--mcp-relay.rate-limits[0].name=open-calls", "--mcp-relay.rate-limits[0].match.server=open",
				"--mcp-relay.rate-limits[0].limit=100000", "--mcp-relay.rate-limits[0].period=1h",
				"--mcp-relay.rate-limits[1].name=closed-calls", "--mcp-relay.rate-limits[1].match.server=closed",
				"--mcp-relay.rate-limits[1].limit=100000", "--mcp-relay.rate-limits[1].period=1h",
				"--mcp-relay.rate-limits[1].on-store-failure=fail-closed").awaitReady();
	}

	@AfterAll
	static void stopRelays() throws Exception {
		if (relays != null) {
			relays.close();
			relays = null;
		}
	}

	/** The port of the master the test will kill: on a Cluster, the one that holds the fail-closed rule's budget. */
	abstract int doomedMaster() throws Exception;

	/** Whether {@code master} holds {@code key} (on a Cluster, serves its hash slot). */
	abstract boolean holds(int master, String key) throws Exception;

	/**
	 * Waits until what was written has reached the replicas (Redis replicates asynchronously: a master's last
	 * acknowledged writes may be lost with it), loses {@code master} (killed with SIGKILL, or hung with SIGSTOP, as
	 * the subclass says), and returns once the new master is named and takes writes.
	 */
	abstract void loseAndAwaitPromotion(int master) throws Exception;

	/** The Redis key of a session's caller, where its other keys are too. */
	static String sessionKey(String server, String sessionId) {
		return RedisSessionKeys.session(new SessionKey(server, sessionId));
	}

	@Test
	void aMasterLostMidTrafficCostsRetriesNeverAHangNorASession() throws Exception {
		assertThat(post(0, "closed", null, RawHttp.toolsCall(0, "echo")).statusCode()).as("the budget is made")
			.isEqualTo(200);
		int doomed = doomedMaster();
		List<String> virtual = new ArrayList<>();
		List<String> searching = new ArrayList<>();
		// sessions on the master that will be lost, and (on a Cluster) on the others
		for (int i = 0; i < 100 && (doomedOnes(doomed, "all", virtual) < 3 || doomedOnes(doomed, "searching", searching) < 3
				|| virtual.size() < 6); i++) {
			virtual.add(McpSession.open(http(i), "all").id());
			String search = McpSession.open(http(i + 1), "searching").id();
			assertThat(post(i, "searching", search, SharedStateContract.call(1, "search_available_tools",
					"{\"query\":\"echo\"}")).statusCode()).isEqualTo(200);
			searching.add(search);
		}
		assertThat(doomedOnes(doomed, "all", virtual)).as("virtual sessions on the master to be killed").isGreaterThanOrEqualTo(3);
		warmMemberStreams(virtual.get(0));

		ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
		AtomicBoolean stop = new AtomicBoolean();
		CompletableFuture<Void> traffic = CompletableFuture.runAsync(() -> {
			for (int i = 0; !stop.get(); i++) {
				int n = i;
				send(answers, "virtual", () -> post(n, "all", virtual.get(n / 2 % virtual.size()), SharedStateContract.list(n)));
				send(answers, "searching", () -> post(n, "searching", searching.get(n / 2 % searching.size()),
						SharedStateContract.list(n)));
				send(answers, "initialize", () -> post(n, "all", null, McpSession.initialize(n)));
				send(answers, "fail-open", () -> post(n, "open", null, RawHttp.toolsCall(n, "echo")));
				send(answers, "fail-closed", () -> post(n, "closed", null, RawHttp.toolsCall(n, "echo")));
			}
		});
		long killed = System.nanoTime();
		loseAndAwaitPromotion(doomed);
		long promoted = System.nanoTime();
		awaitEveryKindSucceedsAfter(answers, killed, promoted, 5);
		stop.set(true);
		traffic.get(BOUND.toSeconds() * 5, TimeUnit.SECONDS);

		System.out.printf("failover: new master named %d ms after the kill; %s%n",
				TimeUnit.NANOSECONDS.toMillis(promoted - killed), summary(answers, killed, promoted));
		assertThat(answers.stream().filter(answer -> answer.status() != 200).mapToLong(Answer::atNanos).max().orElse(0))
			.as("the last refusal within %s of the promotion", RECOVERY).isLessThan(promoted + RECOVERY.toNanos());
		assertThat(answers).as("every request answered within %s", BOUND)
			.allSatisfy(answer -> assertThat(answer.millis()).as(answer.toString()).isLessThan(BOUND.toMillis()));
		assertThat(answers).as("needing the store: an answer, or 503 session_store_unavailable to retry")
			.filteredOn(answer -> List.of("virtual", "searching", "initialize").contains(answer.kind()))
			.allSatisfy(answer -> assertThat(answer.status() == 200
					|| answer.status() == 503 && "session_store_unavailable".equals(answer.reason()))
				.as(answer.toString()).isTrue());
		assertThat(answers).as("a fail-open rule admits what it cannot count")
			.filteredOn(answer -> answer.kind().equals("fail-open"))
			.allSatisfy(answer -> assertThat(answer.status()).as(answer.toString()).isEqualTo(200));
		assertThat(answers).as("a fail-closed rule refuses what it cannot count")
			.filteredOn(answer -> answer.kind().equals("fail-closed"))
			.allSatisfy(answer -> assertThat(answer.status() == 200
					|| answer.status() == 503 && "rate_limit_unavailable".equals(answer.reason()))
				.as(answer.toString()).isTrue());

		for (int i = 0; i < virtual.size(); i++) {
			for (ConfigurableApplicationContext relay : List.of(relays.first(), relays.second())) {
				HttpResponse<String> listed = post(relay, "all", virtual.get(i), SharedStateContract.list(100));
				assertThat(listed.statusCode()).as("virtual session %d after the failover: %s", i, listed.body())
					.isEqualTo(200);
				HttpResponse<String> found = post(relay, "searching", searching.get(i), SharedStateContract.list(101));
				assertThat(SharedStateContract.last(found).at("/result/tools").findValuesAsText("name"))
					.as("what search %d exposed before the failover", i).contains("echo");
			}
		}
	}

	/**
	 * One virtual tools/list on each relay before the failover, so that what the test measures is the failover: the
	 * first call to a member a relay has not seen open a stream yet waits up to MergedStreams' STREAM_OPEN_WAIT (5 s,
	 * the test's whole {@link #BOUND}) for it, and the Java SDK member sends its GET's headers only with its first
	 * event; once a relay has seen that, its calls wait for the member's stream at most SessionOrder's
	 * GET_HEADERS_GRACE. Each relay learns this once per member, whatever the store does.
	 */
	private static void warmMemberStreams(String virtualSession) {
		for (ConfigurableApplicationContext relay : List.of(relays.first(), relays.second())) {
			// the wait for the member's stream, then the call itself within the test's bound
			HttpResponse<String> listed = post(relay, "all", virtualSession, SharedStateContract.list(0),
					BOUND.plus(BOUND));
			assertThat(listed.statusCode()).as("the warming list: %s", listed.body()).isEqualTo(200);
		}
	}

	private int doomedOnes(int master, String server, List<String> sessions) throws Exception {
		int count = 0;
		for (String session : sessions) {
			count += holds(master, sessionKey(server, session)) ? 1 : 0;
		}
		return count;
	}

	/**
	 * Waits until the last {@code window} answers of every kind since the promotion are all 200, failing at once on a
	 * refusal of a request sent more than {@link #RECOVERY} after the promotion. How long the window takes to fill is
	 * how fast this machine serves the test's sequential traffic (a round of five requests took 2 s on a machine
	 * loaded twentyfold), not how soon the relays recovered, so it is bounded only by {@link #TRAFFIC_STALLED}. (Every
	 * session is then asked on both relays, and must answer at once.)
	 */
	private void awaitEveryKindSucceedsAfter(ConcurrentLinkedQueue<Answer> answers, long killed, long promoted,
			int window) throws InterruptedException {
		long recovery = promoted + RECOVERY.toNanos();
		long stalled = promoted + TRAFFIC_STALLED.toNanos();
		List<String> kinds = List.of("virtual", "searching", "initialize", "fail-open", "fail-closed");
		while (true) {
			Map<String, Boolean> recovered = kinds.stream()
				.collect(Collectors.toMap(kind -> kind, kind -> {
					List<Answer> after = answers.stream()
						.filter(answer -> answer.kind().equals(kind) && answer.atNanos() > promoted)
						.toList();
					return after.size() >= window && after.subList(after.size() - window, after.size())
						.stream()
						.allMatch(answer -> answer.status() == 200);
				}));
			if (!recovered.containsValue(false)) {
				return;
			}
			assertThat(answers).as("no refusal of a request sent more than %s after the promotion: %s", RECOVERY,
					summary(answers, killed, promoted))
				.noneMatch(answer -> answer.status() != 200 && answer.atNanos() > recovery);
			assertThat(System.nanoTime()).as("%d answers of every kind after the promotion within %s: %s; %s", window,
					TRAFFIC_STALLED, recovered, summary(answers, killed, promoted)).isLessThan(stalled);
			Thread.sleep(100);
		}
	}

	private static String summary(ConcurrentLinkedQueue<Answer> answers, long killed, long promoted) {
		return answers.stream()
			.filter(answer -> answer.status() != 200)
			.collect(Collectors.groupingBy(answer -> answer.kind() + " " + answer.status() + " " + answer.reason(),
					Collectors.summarizingLong(answer -> TimeUnit.NANOSECONDS.toMillis(answer.atNanos() - killed))))
			.entrySet()
			.stream()
			.map(entry -> entry.getKey() + ": " + entry.getValue().getCount() + " between " + entry.getValue().getMin()
					+ " and " + entry.getValue().getMax() + " ms after the kill")
			.collect(Collectors.joining("; ", "refused: [", "]"))
			+ "; slowest answer " + answers.stream().mapToLong(Answer::millis).max().orElse(0) + " ms of "
			+ answers.size() + ", the last refusal "
			+ answers.stream().filter(answer -> answer.status() != 200).mapToLong(Answer::atNanos).max()
				.stream().map(at -> TimeUnit.NANOSECONDS.toMillis(at - promoted)).boxed().findFirst().orElse(null)
			+ " ms after the promotion";
	}

	private static void send(ConcurrentLinkedQueue<Answer> answers, String kind,
			java.util.function.Supplier<HttpResponse<String>> request) {
		long start = System.nanoTime();
		int status;
		String reason = null;
		try {
			HttpResponse<String> response = request.get();
			status = response.statusCode();
			if (status != 200) {
				JsonNode error = RawHttp.json(response.body());
				reason = error.at("/error/data/reason").asText(null);
			}
		}
		catch (RuntimeException unanswered) {
			status = -1;
			reason = unanswered.toString();
		}
		answers.add(new Answer(kind, start, status, reason, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
	}

	/** Requests take turns between the relays, as a load balancer without affinity would send them. */
	private static ConfigurableApplicationContext relay(int n) {
		return n % 2 == 0 ? relays.first() : relays.second();
	}

	private static RawHttp http(int n) {
		return new RawHttp(TwoRelaysOverRedis.port(relay(n)));
	}

	private static HttpResponse<String> post(int n, String server, String session, String body) {
		return post(relay(n), server, session, body);
	}

	private static HttpResponse<String> post(ConfigurableApplicationContext relay, String server, String session,
			String body) {
		return post(relay, server, session, body, BOUND);
	}

	private static HttpResponse<String> post(ConfigurableApplicationContext relay, String server, String session,
			String body, Duration timeout) {
		RawHttp http = new RawHttp(TwoRelaysOverRedis.port(relay));
		java.net.http.HttpRequest.Builder request = http.post(server, body)
			.timeout(timeout)
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION);
		return http.send(session == null ? request : request.header("Mcp-Session-Id", session));
	}

}
