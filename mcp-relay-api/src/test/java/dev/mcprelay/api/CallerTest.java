package dev.mcprelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * No caller but the anonymous one is without an id: sessions, quotas and rate limits are kept per caller id, so two
 * callers with a blank id would be one.
 */
class CallerTest {

	@Test
	void onlyTheAnonymousCallerHasNoId() {
		assertThat(Caller.ANONYMOUS.id()).isNull();
		assertThat(Caller.apiKey("ci-bot").id()).isEqualTo("ci-bot");
		for (String blank : new String[] { null, "", "  ", "\t" }) {
			assertThatThrownBy(() -> Caller.token(blank, Set.of(), Map.of())).as("token %s", blank)
				.isInstanceOf(IllegalArgumentException.class);
			assertThatThrownBy(() -> Caller.apiKey(blank)).as("key %s", blank)
				.isInstanceOf(IllegalArgumentException.class);
		}
		assertThatThrownBy(() -> new Caller("alice", null, Set.of(), Map.of())).isInstanceOf(IllegalArgumentException.class);
	}

}
