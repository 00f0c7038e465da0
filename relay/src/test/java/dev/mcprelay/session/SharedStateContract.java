package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SharedRedis;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What every store of the relay keeps in Redis works the same whichever way Redis runs, configured with Spring Data
 * Redis's own {@code spring.data.redis.*} alone: two relays over one deployment admit exactly a rate limit between
 * them (Bucket4j), end a caller's oldest session past {@code sessions.max-per-caller} whichever relay opened it, and
 * continue on one relay the tool-search and virtual-server sessions the other opened; their store health names the
 * topology and is up. One subclass per topology starts it, and the relays over it, once for the class.
 */
abstract class SharedStateContract {

	static final String ALICE = "alice-key-for-the-shared-state-tests";

	static final String BOB = "bob-key-for-the-shared-state-tests";

	static final String CAROL = "carol-key-for-the-shared-state-tests";

	private static final int LIMIT = 20;

	private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	static TwoRelaysOverRedis relays;

	/** Starts two relays over {@code redis}: api-key callers, a tool-search server, a virtual server, a limited one. */
	static void startRelaysOver(SharedRedis redis) throws Exception {
		String mcp = TestUpstreams.SDK.url("/mcp");
		String stateless = TestUpstreams.SDK.url("/stateless");
		List<String> args = new ArrayList<>(List.of("--mcp-relay.security.mode=api-key",
				"--mcp-relay.servers.searching.url=" + mcp, "--mcp-relay.servers.searching.tool-search.enabled=true",
				"--mcp-relay.servers.alpha.url=" + mcp, "--mcp-relay.servers.beta.url=" + stateless,
				"--mcp-relay.servers.counted.url=" + stateless, "--mcp-relay.virtual-servers.all.members=alpha,beta",
				"--mcp-relay.rate-limits[0].name=counted-calls", "--mcp-relay.rate-limits[0].match.server=counted",
				"--mcp-relay.rate-limits[0].per=client", "--mcp-relay.rate-limits[0].limit=" + LIMIT,
				"--mcp-relay.rate-limits[0].period=1h", "--mcp-relay.sessions.max-per-caller=2",
				"--mcp-relay.sessions.secret=a-secret-both-relays-share-0123456789"));
		List<String> keys = List.of(ALICE, BOB, CAROL);
		for (int i = 0; i < keys.size(); i++) {
			args.add("--mcp-relay.security.api-keys[" + i + "].client=" + keys.get(i).substring(0, keys.get(i).indexOf('-')));
			args.add("--mcp-relay.security.api-keys[" + i + "].key-sha256=" + HexFormat.of().formatHex(
					java.security.MessageDigest.getInstance("SHA-256").digest(keys.get(i).getBytes())));
			args.add("--mcp-relay.security.api-keys[" + i + "].servers[0]=*");
		}
		relays = TwoRelaysOverRedis.over(redis, args.toArray(String[]::new)).awaitReady();
	}

	@AfterAll
	static void stopRelays() throws Exception {
		if (relays != null) {
			relays.close();
			relays = null;
		}
	}

	/**
	 * Four calls in flight at a time, taking turns between the relays, so that both relays' checks of one bucket
	 * overlap: each check is a compare-and-swap in Redis that the other relay's may have to retry.
	 */
	@Test
	void twoRelaysAdmitExactlyTheRateLimitBetweenThem() {
		List<Integer> statuses = Flux.range(0, 3 * LIMIT)
			.flatMapSequential(i -> Mono.fromFuture(() -> CLIENT.sendAsync(as(CAROL, i % 2 == 0 ? first() : second())
				.post("counted", RawHttp.toolsCall(i, "echo"))
				.build(), HttpResponse.BodyHandlers.ofString())), 4)
			.map(HttpResponse::statusCode)
			.collectList()
			.block(Duration.ofMinutes(2));

		assertThat(statuses.stream().filter(status -> status == 200)).as("exactly the limit is admitted, " + statuses)
			.hasSize(LIMIT);
		assertThat(statuses.stream().filter(status -> status == 429)).as("every other call is limited").hasSize(2 * LIMIT);
		assertThat(count(first(), RelayMeters.RATE_LIMIT_STORE_ERRORS) + count(second(), RelayMeters.RATE_LIMIT_STORE_ERRORS))
			.as("no check failed (a failed check is let through uncounted)").isZero();
	}

	@Test
	void aCallerPastItsQuotaLosesItsOwnOldestSessionWhicheverRelayOpenedIt() {
		McpSession bobs = McpSession.open(as(BOB, second()), "all");
		McpSession oldest = McpSession.open(as(ALICE, first()), "all");
		McpSession searching = McpSession.open(as(ALICE, second()), "searching");
		McpSession newest = McpSession.open(as(ALICE, first()), "all");

		for (ConfigurableApplicationContext relay : List.of(first(), second())) {
			assertThat(post(relay, ALICE, "all", oldest.id(), ping(1)).statusCode())
				.as("alice's oldest session ended when her third opened").isEqualTo(404);
			assertThat(post(relay, ALICE, "searching", searching.id(), list(2)).statusCode())
				.as("a tool-search server looks its session up for a list").isEqualTo(200);
			assertThat(post(relay, ALICE, "all", newest.id(), ping(3)).statusCode()).isEqualTo(200);
			assertThat(post(relay, BOB, "all", bobs.id(), ping(4)).statusCode())
				.as("bob's session is never alice's to end").isEqualTo(200);
		}
		McpSession.open(as(ALICE, second()), "all");
		assertThat(post(first(), ALICE, "searching", searching.id(), list(5)).statusCode())
			.as("a tool-search session is counted with her virtual ones").isEqualTo(404);
		assertThat(count(first(), RelayMeters.SESSIONS_EVICTED) + count(second(), RelayMeters.SESSIONS_EVICTED))
			.as("each ended session is counted once").isEqualTo(2);
		assertThat(count(first(), RelayMeters.SESSION_STORE_ERRORS) + count(second(), RelayMeters.SESSION_STORE_ERRORS))
			.isZero();
	}

	@Test
	void aToolSearchOnOneRelayIsHonouredOnTheOther() {
		String session = McpSession.open(as(CAROL, first()), "searching").id();
		assertThat(names(post(second(), CAROL, "searching", session, list(1)))).as("the other relay knows the session")
			.containsExactly("search_available_tools");

		HttpResponse<String> found = post(first(), CAROL, "searching", session, call(2, "search_available_tools",
				"{\"query\":\"echo\"}"));
		assertThat(RawHttp.messagesOf(found).get(0).path("method").asText()).isEqualTo("notifications/tools/list_changed");

		assertThat(names(post(second(), CAROL, "searching", session, list(3)))).as("found on one, listed on the other")
			.contains("echo");
		assertThat(last(post(second(), CAROL, "searching", session, call(4, "echo", "{\"message\":\"across\"}")))
			.at("/result/content/0/text").asText()).isEqualTo("across");
	}

	@Test
	void aVirtualSessionOpenedOnOneRelayIsContinuedAndEndedOnTheOther() {
		String session = McpSession.open(as(CAROL, first()), "all").id();

		assertThat(last(post(second(), CAROL, "all", session, list(1))).at("/result/tools").findValuesAsText("name"))
			.contains("alpha_echo", "beta_echo");
		for (String tool : List.of("alpha_echo", "beta_echo")) {
			assertThat(last(post(second(), CAROL, "all", session, call(2, tool, "{\"message\":\"across\"}")))
				.at("/result/content/0/text").asText()).as(tool).isEqualTo("across");
		}
		RawHttp onSecond = as(CAROL, second());
		assertThat(onSecond.send(onSecond.request("all").DELETE().header("Mcp-Session-Id", session)).statusCode())
			.isEqualTo(200);
		assertThat(post(first(), CAROL, "all", session, ping(3)).statusCode()).as("ended on the other relay")
			.isEqualTo(404);
	}

	@Test
	void theStoreHealthNamesTheTopologyAndEveryPartAnswers() throws Exception {
		for (ConfigurableApplicationContext relay : List.of(first(), second())) {
			Health health = relay.getBean(RelayStoreHealth.class).health().block(Duration.ofSeconds(10));
			assertThat(health.getStatus()).as(String.valueOf(health.getDetails())).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("store", "redis")
				.containsEntry("topology", relays.store().topology())
				.doesNotContainKey("unavailable");
			HttpResponse<String> readiness = CLIENT.send(HttpRequest
				.newBuilder(URI.create("http://127.0.0.1:" + TwoRelaysOverRedis.port(relay) + "/actuator/health/readiness"))
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(readiness.statusCode()).isEqualTo(200);
		}
	}

	static ConfigurableApplicationContext first() {
		return relays.first();
	}

	static ConfigurableApplicationContext second() {
		return relays.second();
	}

	static RawHttp as(String apiKey, ConfigurableApplicationContext relay) {
		return new RawHttp(TwoRelaysOverRedis.port(relay), "X-Api-Key", apiKey);
	}

	static HttpResponse<String> post(ConfigurableApplicationContext relay, String apiKey, String server, String session,
			String body) {
		RawHttp http = as(apiKey, relay);
		return http.send(http.post(server, body).header("Mcp-Session-Id", session)
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION));
	}

	static String ping(int id) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}";
	}

	static String list(int id) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}";
	}

	static String call(int id, String tool, String arguments) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":" + arguments + "}}";
	}

	static JsonNode last(HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.statusCode() + " " + response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	private static List<String> names(HttpResponse<String> listed) {
		return last(listed).at("/result/tools").findValuesAsText("name").stream()
			.filter(name -> !name.isEmpty())
			.distinct()
			.toList();
	}

	private static double count(ConfigurableApplicationContext relay, String meter) {
		return relay.getBean(MeterRegistry.class).find(meter).counters().stream().mapToDouble(Counter::count).sum();
	}

}
