package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * Whether a virtual session still holds is judged as its version is (review 44e, F1 and F4): a session ends on a
 * replica that itself replaced the version whose settings it was opened under, never on one that has not read the
 * newer settings yet, and never after a reload that left its virtual server's version as it was.
 */
class VirtualSessionTermsTest {

	private static final Map<String, String> RUNNING = Map.of("security.mode", "none",
			"servers.alpha.url", "http://127.0.0.1:1/mcp", "servers.beta.url", "http://127.0.0.1:2/mcp",
			"virtual-servers.v.members[0]", "alpha", "virtual-servers.v.members[1]", "beta");

	@Test
	void aSessionHoldsAfterAServerRemovedWithItsMentionIsAddedBackAsAServerOnly() {
		Replica replica = new Replica();
		String opened = replica.v().terms();

		Map<String, String> betaRemoved = new HashMap<>(RUNNING);
		betaRemoved.remove("servers.beta.url");
		betaRemoved.remove("virtual-servers.v.members[1]");
		replica.apply(betaRemoved);
		assertThat(VirtualSessionTerms.hold(opened, replica.v())).as("beta and its mention removed").isTrue();

		Map<String, String> betaBack = new HashMap<>(betaRemoved);
		betaBack.put("servers.beta.url", "http://127.0.0.1:2/mcp");
		replica.apply(betaBack);
		assertThat(replica.v().members()).containsExactly("alpha");
		assertThat(VirtualSessionTerms.hold(opened, replica.v())).as("beta added back as a server only").isTrue();

		betaBack.put("virtual-servers.v.tool-prefix", "x_");
		replica.apply(betaBack);
		assertThat(VirtualSessionTerms.hold(opened, replica.v())).as("v's settings changed: the session ended")
			.isFalse();
	}

	@Test
	void theReplicaBehindNeverEndsASessionOfTheNewerSettingsAndTheOneAheadEndsThoseOfTheOlder() {
		Replica ahead = new Replica();
		Replica behind = new Replica();
		String older = behind.v().terms();
		Map<String, String> prefixed = new HashMap<>(RUNNING);
		prefixed.put("virtual-servers.v.tool-prefix", "x_");
		ahead.apply(prefixed);
		String newer = ahead.v().terms();

		assertThat(VirtualSessionTerms.hold(newer, behind.v())).as("a session of the newer settings, on the replica "
				+ "behind").isTrue();
		assertThat(VirtualSessionTerms.hold(older, behind.v())).as("one of its own settings").isTrue();
		assertThat(VirtualSessionTerms.hold(older, ahead.v())).as("one of the older settings, on the replica ahead")
			.isFalse();
		assertThat(VirtualSessionTerms.hold(newer, ahead.v())).isTrue();

		behind.apply(prefixed);
		assertThat(VirtualSessionTerms.hold(older, behind.v())).as("once it applied the change itself").isFalse();
		assertThat(VirtualSessionTerms.hold(newer, behind.v())).isTrue();
		assertThat(VirtualSessionTerms.hold(null, behind.v())).as("a session stored without terms").isTrue();
	}

	/** One relay's virtual servers, on its own configuration. */
	private static final class Replica {

		private final VirtualServers servers = new VirtualServers();

		private final LiveConfiguration live = new LiveConfiguration(BoundProperties.of(RUNNING),
				new MockEnvironment(), List.of(servers));

		void apply(Map<String, String> properties) {
			live.apply(BoundProperties.of(properties));
		}

		VirtualServer v() {
			return servers.find(live.current(), "v");
		}

	}

}
