package dev.mcprelay.intercept;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.live.ConfigurationSnapshot;

/**
 * The configuration snapshot a {@link CallContext}'s request runs on, for the relay's own interceptors that compile a
 * part of it ({@code ArgumentPolicy}, ...): the interceptor API names the server, not the configuration, so the relay
 * leaves the request's snapshot among the context's attributes when it makes the context ({@code McpRelay}), and such
 * an interceptor reads its part of that snapshot, never the current one, so a reload while the request runs changes
 * nothing it sees. The attribute's value prints as the snapshot's generation and checksum, never a setting.
 */
public final class CallConfiguration {

	private static final String ATTRIBUTE = "mcp-relay.configuration";

	private CallConfiguration() {
	}

	/** Leaves {@code snapshot}, the request's, on {@code context}; returns the context. */
	public static CallContext attach(CallContext context, ConfigurationSnapshot snapshot) {
		context.attributes().put(ATTRIBUTE, snapshot);
		return context;
	}

	/** The snapshot the request of {@code context} runs on; {@code null} for a context the relay did not make. */
	public static ConfigurationSnapshot of(CallContext context) {
		return context.attributes().get(ATTRIBUTE) instanceof ConfigurationSnapshot snapshot ? snapshot : null;
	}

}
