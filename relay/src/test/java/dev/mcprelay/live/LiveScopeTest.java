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

		assertThat(LiveScope.problems(running, with("servers[acme.tools].tools.deny[0]", "delete_file")))
			.as("a tool list is not live: refused, named by the server's whole id")
			.extracting(ConfigurationProblem::property).containsExactly("mcp-relay.servers.[acme.tools].tools");
		assertThat(LiveScope.problems(running, with("servers[acme.tools].headers[0].name", "X-Tenant")))
			.as("headers are live").isEmpty();
		assertThat(ConfigurationChanges.between(running, with("servers[acme.tools].url", "http://127.0.0.1:3/mcp")))
			.containsExactly("servers.[acme.tools] changed");
	}

	private static RelayProperties with(String key, String value) {
		Map<String, String> properties = new HashMap<>(RUNNING);
		properties.put(key, value);
		return BoundProperties.of(properties);
	}

}
