package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Rate-limit rules kept in a real Redis: a request one rule refuses spends nothing of the budgets of the others, which
 * other callers share. With a rule for hot tools (2 calls) and one for every call of the server (5), in either order,
 * calls of a hot tool past its 2 leave the server's 5 to the other calls: 3 are let through after the 2 hot ones, and
 * the next is refused by the server's rule (the token a rule before the one that refuses took is given back before the
 * refusal is answered). And a rule after the one that refuses is never asked: no bucket of its is made in Redis.
 */
class RateLimitRulesOverRedisTest {

	static TwoRelaysOverRedis relays;

	@BeforeAll
	static void start() throws Exception {
		String stateless = TestUpstreams.SDK.url("/stateless");
		relays = TwoRelaysOverRedis.start("--mcp-relay.servers.hot-first.url=" + stateless,
				"--mcp-relay.servers.hot-last.url=" + stateless,
				"--mcp-relay.rate-limits[0].name=hot", "--mcp-relay.rate-limits[0].match.server=hot-first",
				"--mcp-relay.rate-limits[0].match.tool=secret_*", "--mcp-relay.rate-limits[0].per=server",
				"--mcp-relay.rate-limits[0].limit=2", "--mcp-relay.rate-limits[0].period=1h",
				"--mcp-relay.rate-limits[1].name=all", "--mcp-relay.rate-limits[1].match.server=hot-first",
				"--mcp-relay.rate-limits[1].per=server", "--mcp-relay.rate-limits[1].limit=5",
				"--mcp-relay.rate-limits[1].period=1h",
				"--mcp-relay.rate-limits[2].name=every-call", "--mcp-relay.rate-limits[2].match.server=hot-last",
				"--mcp-relay.rate-limits[2].per=server", "--mcp-relay.rate-limits[2].limit=5",
				"--mcp-relay.rate-limits[2].period=1h",
				"--mcp-relay.rate-limits[3].name=hot-tools", "--mcp-relay.rate-limits[3].match.server=hot-last",
				"--mcp-relay.rate-limits[3].match.tool=secret_*", "--mcp-relay.rate-limits[3].per=server",
				"--mcp-relay.rate-limits[3].limit=2", "--mcp-relay.rate-limits[3].period=1h",
				"--mcp-relay.servers.spent.url=" + stateless, "--mcp-relay.servers.shared.url=" + stateless,
				"--mcp-relay.rate-limits[4].name=caller", "--mcp-relay.rate-limits[4].match.server=s*",
				"--mcp-relay.rate-limits[4].per=global", "--mcp-relay.rate-limits[4].limit=2", "--mcp-relay.rate-limits[4].period=1h",
				"--mcp-relay.rate-limits[5].name=shared-budget", "--mcp-relay.rate-limits[5].match.server=shared",
				"--mcp-relay.rate-limits[5].per=global", "--mcp-relay.rate-limits[5].limit=5",
				"--mcp-relay.rate-limits[5].period=1h");
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
	}

	@Test
	void aRequestTheFirstRuleRefusesLeavesTheSecondRulesBudgetAlone() {
		assertThat(calls("hot-first")).as("2 hot calls, 4 refused by hot; then 3 other calls, and all's 5 are spent")
			.containsExactly("secret_admin 200", "secret_admin 200", "secret_admin 429 hot", "secret_admin 429 hot",
					"secret_admin 429 hot", "secret_admin 429 hot", "echo 200", "echo 200", "echo 200", "echo 429 all");
	}

	@Test
	void aRequestTheSecondRuleRefusesGivesTheFirstRulesTokenBack() {
		assertThat(calls("hot-last")).as("2 hot calls, 4 refused by hot-tools, every-call's token given back each time")
			.containsExactly("secret_admin 200", "secret_admin 200", "secret_admin 429 hot-tools",
					"secret_admin 429 hot-tools", "secret_admin 429 hot-tools", "secret_admin 429 hot-tools", "echo 200",
					"echo 200", "echo 200", "echo 429 every-call");
	}

	@Test
	void aRuleAfterTheOneThatRefusesIsNeverAsked() throws Exception {
		RawHttp http = new RawHttp(TwoRelaysOverRedis.port(relays.first()));
		for (int i = 0; i < 2; i++) {
			assertThat(http.send(http.post("spent", RawHttp.toolsCall(i, "echo"))).statusCode())
				.as("the caller's 2 spent on a server the shared rule does not count").isEqualTo(200);
		}
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> refused = http.send(http.post("shared", RawHttp.toolsCall(i, "echo")));
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(RawHttp.json(refused.body()).at("/error/data/rule").asText()).isEqualTo("caller");
		}
		assertThat(redisCli("KEYS", RedisRateLimitBuckets.KEY_PREFIX + "shared-budget|*"))
			.as("the shared rule's budget was never asked for the refused requests: Redis has no bucket for it")
			.isEmpty();
		assertThat(redisCli("KEYS", RedisRateLimitBuckets.KEY_PREFIX + "caller|*"))
			.as("while the rule that refused them has its one (the pattern finds a rule's buckets)").isNotEmpty();
	}

	private static String redisCli(String... command) throws Exception {
		List<String> line = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p",
				String.valueOf(relays.redis().port())));
		line.addAll(List.of(command));
		Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
		String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
		assertThat(process.waitFor()).as(out).isZero();
		return out;
	}

	/** Six calls of a hot tool, then four of another, through the first relay; each as tool, status and rule. */
	private static List<String> calls(String server) {
		RawHttp http = new RawHttp(TwoRelaysOverRedis.port(relays.first()));
		List<String> outcomes = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			String tool = i < 6 ? "secret_admin" : "echo";
			HttpResponse<String> response = http.send(http.post(server, RawHttp.toolsCall(i, tool)));
			outcomes.add(tool + " " + response.statusCode() + (response.statusCode() == 200 ? ""
					: " " + RawHttp.json(response.body()).at("/error/data/rule").asText()));
		}
		return outcomes;
	}

}
