package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * Session ids bound to their caller: what one relay binds, every relay with the same {@code sessions.secret} verifies
 * for the same caller and server, and nothing else does.
 */
class SessionBindingTest {

	static final Caller ALICE = Caller.apiKey("alice");

	static final Caller BOB = Caller.apiKey("bob");

	@Test
	void anIdVerifiesForItsCallerAndServerOnly() {
		SessionBinding binding = binding("api-key", "shared-secret");
		String id = binding.bind("acme", ALICE, "upstream-session-7");

		assertThat(id).as("visible ASCII only, as MCP requires of a session id").matches("[\\x21-\\x7e]+")
			.startsWith("upstream-session-7.");
		assertThat(binding.unbind("acme", ALICE, id)).isEqualTo("upstream-session-7");
		assertThat(binding.unbind("acme", BOB, id)).as("another caller").isNull();
		assertThat(binding.unbind("other", ALICE, id)).as("another server").isNull();
		assertThat(binding.unbind("acme", new Caller("alice", Caller.Kind.JWT, java.util.Set.of(), Map.of()), id))
			.as("a token subject named like an API-key client is another caller").isNull();
		assertThat(binding.unbind("acme", ALICE, "upstream-session-7")).as("no signature").isNull();
		assertThat(binding.unbind("acme", ALICE, "upstream-session-8" + id.substring(id.indexOf('.'))))
			.as("another session under this signature").isNull();
		assertThat(binding.unbind("acme", ALICE, ".x")).isNull();
		assertThat(binding.unbind("acme", ALICE, "x.")).isNull();
	}

	@Test
	void replicasSharingTheSecretTrustEachOtherAndNoOneElse() {
		String id = binding("jwt", "shared-secret").bind("acme", ALICE, "s-1");

		assertThat(binding("jwt", "shared-secret").unbind("acme", ALICE, id)).as("a replica with the same secret")
			.isEqualTo("s-1");
		assertThat(binding("jwt", "another-secret").unbind("acme", ALICE, id)).as("a relay with another secret")
			.isNull();
		assertThat(binding("jwt", null).unbind("acme", ALICE, id)).as("a relay with a key of its own").isNull();
	}

	@Test
	void withoutSecurityThereIsNoCallerToBindTo() {
		assertThat(binding("none", null).enabled()).isFalse();
		assertThat(binding("api-key", null).enabled()).isTrue();
	}

	private static SessionBinding binding(String mode, String secret) {
		Map<String, String> properties = secret == null ? Map.of("security.mode", mode)
				: Map.of("security.mode", mode, "sessions.secret", secret);
		var relay = BoundProperties.of(properties);
		return new SessionBinding(relay, new RelayMac(relay));
	}

}
