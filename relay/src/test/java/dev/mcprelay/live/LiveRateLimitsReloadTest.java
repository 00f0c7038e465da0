package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * Rate limits are reloaded while the relay runs, in front of a real MCP server (the SDK's stateless one), with their
 * buckets in memory and in a real Redis: a rule a reload leaves as it was keeps its buckets (a caller at its limit stays
 * there, its Redis keys unchanged), a rule a reload changes starts with fresh ones, one whose settings return to
 * earlier ones resumes the buckets it had under them, a server added is counted by the
 * rules that match it from its first request, and an invalid edit is refused whole with the running rules counting on.
 */
class LiveRateLimitsReloadTest {

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("", ""))
		.peer(() -> upstream = new SdkMcpUpstream());

	@Test
	void aCallerAtItsLimitStaysThereAcrossAReloadAndAChangedRuleStartsAfresh() throws Exception {
		live.reload(config(rule("kept", 2), ""), ReloadOutcome.APPLIED);
		assertThat(calls(live.http(), "alpha", 3)).containsExactly("200", "200", "429 kept");

		live.reload(config(rule("kept", 2), "beta"), ReloadOutcome.APPLIED);

		assertThat(calls(live.http(), "alpha", 1)).as("the rule is as it was: the caller stays at its limit")
			.containsExactly("429 kept");
		assertThat(calls(live.http(), "beta", 3)).as("the server the reload added, counted from its first request")
			.containsExactly("200", "200", "429 kept");

		live.reload(config(rule("kept", 3), "beta"), ReloadOutcome.APPLIED);

		assertThat(calls(live.http(), "alpha", 4)).as("the changed rule's buckets are fresh")
			.containsExactly("200", "200", "200", "429 kept");
	}

	@Test
	void aRuleWhoseSettingsReturnToEarlierOnesResumesTheBudgetItHadUnderThemRefilledForTheTimePassed() throws Exception {
		live.reload(config(rule("undone", 2), ""), ReloadOutcome.APPLIED);
		assertThat(calls(live.http(), "alpha", 2)).containsExactly("200", "200");
		long waitBefore = refusal(live.http(), "alpha").path("retryAfterSeconds").asLong();
		assertThat(waitBefore).as("a token back every 30 minutes").isPositive();

		live.reload(config(rule("undone", 3), ""), ReloadOutcome.APPLIED);
		assertThat(calls(live.http(), "alpha", 4)).as("the changed rule's budget is fresh")
			.containsExactly("200", "200", "200", "429 undone");

		live.reload(config(rule("undone", 2), ""), ReloadOutcome.APPLIED);

		JsonNode resumed = refusal(live.http(), "alpha");
		assertThat(resumed.path("rule").asText()).isEqualTo("undone");
		assertThat(resumed.path("retryAfterSeconds").asLong())
			.as("the budget it had under these settings, refilled only for the time passed, not a fresh one")
			.isPositive()
			.isLessThanOrEqualTo(waitBefore);
	}

	@Test
	void anInvalidRateLimitEditIsRefusedWholeAndTheRunningRuleCountsOn() throws Exception {
		live.reload(config(rule("strict", 1), ""), ReloadOutcome.APPLIED);
		assertThat(calls(live.http(), "alpha", 2)).containsExactly("200", "429 strict");
		String running = live.relay().checksum();

		live.reload(config(rule("strict", 0), "beta"), ReloadOutcome.REFUSED);

		assertThat(live.relay().checksum()).as("the running configuration stays").isEqualTo(running);
		assertThat(calls(live.http(), "alpha", 1)).as("the running rule still counts").containsExactly("429 strict");
		assertThat(live.http().send(live.http().post("beta", RawHttp.toolsCall(1, "echo"))).statusCode())
			.as("nothing of the refused reload applies").isEqualTo(404);
	}

	@Test
	void inRedisAnUnchangedRuleKeepsItsKeysAndItsBudgetAndAChangedOneStartsWithNewKeys(@TempDir Path redisMount)
			throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start();
				MountedRelay shared = MountedRelay.start(redisMount, inRedis(config(rule("shared", 2), "")),
						redis.relayArguments().toArray(String[]::new))) {
			RawHttp sharedHttp = shared.http();
			assertThat(calls(sharedHttp, "alpha", 3)).containsExactly("200", "200", "429 shared");
			TreeSet<String> keys = keys(redis);
			assertThat(keys).singleElement().asString().startsWith("mcp-relay:rate-limit:shared|").endsWith("|alpha|-");

			shared.awaitOutcome(() -> shared.swap(inRedis(config(rule("shared", 2), "beta"))), ReloadOutcome.APPLIED);

			assertThat(calls(sharedHttp, "alpha", 1)).as("the caller stays at its limit").containsExactly("429 shared");
			assertThat(keys(redis)).as("the unchanged rule's key is the one it had").isEqualTo(keys);

			shared.awaitOutcome(() -> shared.swap(inRedis(config(rule("shared", 3), "beta"))), ReloadOutcome.APPLIED);

			assertThat(calls(sharedHttp, "alpha", 4)).as("the changed rule's bucket is a new one")
				.containsExactly("200", "200", "200", "429 shared");
			assertThat(keys(redis)).as("under a key of its own").hasSize(2).containsAll(keys);
			TreeSet<String> both = keys(redis);

			shared.awaitOutcome(() -> shared.swap(inRedis(config(rule("shared", 2), "beta"))), ReloadOutcome.APPLIED);

			assertThat(calls(sharedHttp, "alpha", 1)).as("settings back to the earlier ones: the budget they had")
				.containsExactly("429 shared");
			assertThat(keys(redis)).as("under the key it had then").isEqualTo(both);
		}
	}

	/** {@code yaml} with the session store (and so the rate-limit buckets) in Redis. */
	private static String inRedis(String yaml) {
		return yaml.replace("mcp-relay:\n", "mcp-relay:\n  sessions:\n    store: redis\n");
	}

	/** Each call's status, and the rule that refused it. */
	private static List<String> calls(RawHttp http, String server, int count) {
		List<String> outcomes = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			HttpResponse<String> response = http.send(http.post(server, RawHttp.toolsCall(i, "echo")));
			outcomes.add(response.statusCode() + (response.statusCode() == 200 ? ""
					: " " + RawHttp.json(response.body()).at("/error/data/rule").asText()));
		}
		return outcomes;
	}

	/** The {@code error.data} of a call to {@code server} that a rule refuses (429). */
	private static JsonNode refusal(RawHttp http, String server) {
		HttpResponse<String> response = http.send(http.post(server, RawHttp.toolsCall(0, "echo")));
		assertThat(response.statusCode()).as("refused: %s", response.body()).isEqualTo(429);
		return RawHttp.json(response.body()).at("/error/data");
	}

	@SuppressWarnings("unchecked")
	private static TreeSet<String> keys(RedisServerProcess redis) throws Exception {
		return new TreeSet<>((List<String>) RedisWire.call(redis.port(), "KEYS", "mcp-relay:rate-limit:*"));
	}

	private static String rule(String name, int limit) {
		return "  rate-limits:\n    - name: " + name + "\n      per: client\n      limit: " + limit
				+ "\n      period: 1h\n";
	}

	/** alpha and these other servers, both the SDK's stateless server, then the rate limits {@code rules}. */
	static String config(String rules, String other) {
		StringBuilder yaml = new StringBuilder("server:\n  port: 0\n  address: 127.0.0.1\n"
				+ "mcp-relay:\n  servers:\n    alpha:\n      url: ").append(upstream.url("/stateless")).append('\n');
		if (!other.isEmpty()) {
			yaml.append("    ").append(other).append(":\n      url: ").append(upstream.url("/stateless")).append('\n');
		}
		return yaml.append("  security:\n    mode: none\n").append(rules).toString();
	}

}
