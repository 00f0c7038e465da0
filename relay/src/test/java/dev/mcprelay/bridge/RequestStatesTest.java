package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The relay's signed requestState (issue 46, direction 2): only what this relay signed comes back, unchanged. */
class RequestStatesTest {

	private final RequestStates states = RequestStates.random();

	private final ObjectNode state = JsonNodeFactory.instance.objectNode().put("call", "c-1").put("server", "s")
		.put("request", "sampling-7");

	@Test
	void aStateThisRelaySignedComesBackUnchanged() {
		assertThat(states.verify(states.sign(state))).isEqualTo(state);
	}

	@Test
	void aForgedOrAlteredStateIsRefused() {
		String token = states.sign(state);
		String[] parts = token.split("\\.");
		ObjectNode changed = state.deepCopy().put("call", "c-2");
		String altered = parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
			.encodeToString(changed.toString().getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
		assertThat(states.verify(altered)).as("another call under the same MAC").isNull();
		char last = parts[2].charAt(parts[2].length() - 2);
		String flipped = token.substring(0, token.length() - 2) + (last == 'A' ? 'B' : 'A')
				+ token.charAt(token.length() - 1);
		assertThat(states.verify(flipped)).as("a MAC changed").isNull();
		assertThat(states.verify(RequestStates.random().sign(state))).as("signed by another relay's key").isNull();
		assertThat(states.verify(parts[0] + "." + parts[1])).as("no MAC").isNull();
		assertThat(states.verify("mcp-relay-1.%%%.%%%")).as("not Base64").isNull();
		assertThat(states.verify("anything")).isNull();
		assertThat(states.verify(null)).isNull();
	}

}
