package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * What a reload may change, and what its log line says changed, compared by binding: a server id may hold dots
 * ({@code acme.tools}), and is one server, never a server {@code acme} with a setting {@code tools}.
 */
class LiveScopeTest {

	private static final Map<String, String> RUNNING = Map.of("security.mode", "none",
			"servers[acme.tools].url", "http://127.0.0.1:1/mcp");

	@Test
	void aServerWhoseIdHoldsADotIsAddedAndRemovedAsOne() {
		RelayProperties running = BoundProperties.of(RUNNING);
		RelayProperties added = with("servers[beta.one].url", "http://127.0.0.1:2/mcp");

		assertThat(LiveScope.problems(running, added)).as("an added server is applied").isEmpty();
		assertThat(LiveScope.problems(added, running)).as("a removed one too").isEmpty();
		assertThat(ConfigurationChanges.between(running, added)).containsExactly("servers.[beta.one] added");
	}

	@Test
	void aSettingOfAServerWhoseIdHoldsADotIsJudgedAsThatSetting() {
		RelayProperties running = BoundProperties.of(RUNNING);

		assertThat(LiveScope.problems(running, with("servers[acme.tools].protocol-versions[0]", "2025-11-25")))
			.as("pinned protocol versions are live").isEmpty();
		assertThat(LiveScope.problems(running, with("servers[acme.tools].tool-search.enabled", "true")))
			.as("tool search is live").isEmpty();
		assertThat(LiveScope.problems(running, with("servers[acme.tools].tools.deny[0]", "delete_file")))
			.as("a tool list is live").isEmpty();
		assertThat(LiveScope.problems(running, with("servers[acme.tools].headers[0].name", "X-Tenant")))
			.as("headers are live").isEmpty();
		assertThat(ConfigurationChanges.between(running, with("servers[acme.tools].url", "http://127.0.0.1:3/mcp")))
			.containsExactly("servers.[acme.tools] changed");
	}

	@Test
	void aServerRemovedWithAKeysAndAVirtualServersMentionsOfItAppliesAndSoDoesAnyOtherChangeToThem() {
		Map<String, String> both = new HashMap<>(Map.of("security.mode", "api-key",
				"servers.alpha.url", "http://127.0.0.1:1/mcp", "servers.beta.url", "http://127.0.0.1:2/mcp",
				"security.api-keys[0].client", "agent", "security.api-keys[0].key-sha256", "a".repeat(64),
				"security.api-keys[0].servers[0]", "alpha", "security.api-keys[0].servers[1]", "beta",
				"virtual-servers.pair.members[0]", "alpha", "virtual-servers.pair.members[1]", "beta"));
		both.put("virtual-servers.pair.prefix.beta", "b_");
		Map<String, String> alphaOnly = new HashMap<>(both);
		alphaOnly.remove("servers.beta.url");
		alphaOnly.remove("security.api-keys[0].servers[1]");
		alphaOnly.remove("virtual-servers.pair.members[1]");
		alphaOnly.remove("virtual-servers.pair.prefix.beta");
		RelayProperties running = BoundProperties.of(both);

		assertThat(LiveScope.problems(running, BoundProperties.of(alphaOnly))).as("beta removed with its mentions")
			.isEmpty();
		Map<String, String> keyAlsoChanged = new HashMap<>(alphaOnly);
		keyAlsoChanged.put("security.api-keys[0].management", "true");
		keyAlsoChanged.put("security.api-keys[1].client", "other");
		keyAlsoChanged.put("security.api-keys[1].key-sha256", "b".repeat(64));
		assertThat(LiveScope.problems(running, BoundProperties.of(keyAlsoChanged)))
			.as("the API keys are live: changed and added beside the removal").isEmpty();
		Map<String, String> memberKept = new HashMap<>(alphaOnly);
		memberKept.put("servers.beta.url", "http://127.0.0.1:2/mcp");
		assertThat(LiveScope.problems(running, BoundProperties.of(memberKept)))
			.as("the virtual servers are live: a member dropped that stays a server").isEmpty();
	}

	@Test
	void anApiKeyIsNamedByItsClientSoRemovingTheFirstNamesOnlyIt() {
		Map<String, String> two = new HashMap<>(Map.of("security.mode", "api-key", "servers.alpha.url",
				"http://127.0.0.1:1/mcp", "security.api-keys[0].client", "alice", "security.api-keys[0].key-sha256",
				"a".repeat(64), "security.api-keys[1].client", "bob", "security.api-keys[1].key-sha256", "b".repeat(64)));
		Map<String, String> bobOnly = new HashMap<>(Map.of("security.mode", "api-key", "servers.alpha.url",
				"http://127.0.0.1:1/mcp", "security.api-keys[0].client", "bob", "security.api-keys[0].key-sha256",
				"b".repeat(64)));

		assertThat(ConfigurationChanges.between(BoundProperties.of(two), BoundProperties.of(bobOnly)))
			.as("bob's key, now first, is unchanged; nothing of a key's hash is named")
			.containsExactly("security.api-keys[alice] removed");
	}

	@Test
	void theApiKeysAndTheJwtSettingsButTheModeAreLive() {
		Map<String, String> jwt = new HashMap<>(Map.of("security.mode", "jwt", "servers.alpha.url",
				"http://127.0.0.1:1/mcp", "security.jwt.issuer-uri", "http://127.0.0.1:9/issuer",
				"security.jwt.audience", "one"));
		RelayProperties running = BoundProperties.of(jwt);
		Map<String, String> changed = new HashMap<>(jwt);
		changed.put("security.jwt.audience", "two");
		changed.put("security.jwt.required-scopes[0]", "mcp");
		changed.put("security.jwt.client-claim", "email");
		assertThat(LiveScope.problems(running, BoundProperties.of(changed))).isEmpty();
	}

	@Test
	void policiesRateLimitsAndToolListsAreLiveAndAServerAddedBesideThemIsApplied() {
		Map<String, String> running = new HashMap<>(RUNNING);
		running.putAll(Map.of("policies[0].name", "no-admin", "policies[0].servers[0]", "*",
				"policies[0].deny", "mcp.tool.name == \"admin\"", "rate-limits[0].limit", "10",
				"rate-limits[0].period", "1m"));
		Map<String, String> next = new HashMap<>(running);
		next.putAll(Map.of("policies[0].deny", "mcp.tool.name == \"root\"", "policies[1].name", "audit",
				"policies[1].servers[0]", "*", "policies[1].deny", "true", "policies[1].enforce", "false",
				"rate-limits[0].limit", "20", "servers.beta.url", "http://127.0.0.1:2/mcp",
				"servers.beta.tools.allow[0]", "echo"));

		assertThat(LiveScope.problems(BoundProperties.of(running), BoundProperties.of(next)))
			.as("policies and rate limits edited, a server added with a tool list beside them").isEmpty();
		assertThat(LiveScope.problems(BoundProperties.of(next), BoundProperties.of(RUNNING)))
			.as("and all of them removed").isEmpty();
	}

	private static RelayProperties with(String key, String value) {
		Map<String, String> properties = new HashMap<>(RUNNING);
		properties.put(key, value);
		return BoundProperties.of(properties);
	}

}
