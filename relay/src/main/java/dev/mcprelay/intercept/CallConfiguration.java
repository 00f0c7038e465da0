package dev.mcprelay.intercept;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.live.ConfigurationSnapshot;

/**
 * The configuration snapshot a {@link CallContext}'s request runs on, for the relay's own interceptors that compile a
 * part of it ({@code ArgumentPolicy}, ...): the interceptor API names the server, not the configuration, so the relay
 * leaves the request's snapshot among the context's attributes when it makes the context ({@code McpRelay}), and such
 * an interceptor reads its part of that snapshot, never the current one, so a reload while the request runs changes
 * nothing it sees. The attribute's value prints as the snapshot's generation and checksum, never a setting.
 *
 * <p>What the server sends of its own accord on a request's stream (a notification, a request to the client) is not
 * part of that request: it is decided when it is sent, on the snapshot current then ({@link #asSent}), so that a GET
 * stream opened before a reload hears the server as a stream opened after it does.
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

	/**
	 * The snapshot a message the server sends of its own accord now, on the stream of {@code context}'s request, is
	 * decided on: {@code current} (the newest) while it still configures the request's server; else (a reload removed
	 * the server, whose streams it ends) the request's own, or {@code current} for a context the relay did not make.
	 */
	public static ConfigurationSnapshot asSent(CallContext context, ConfigurationSnapshot current) {
		ConfigurationSnapshot own = of(context);
		String server = context.server();
		boolean gone = own != null && own != current && server != null
				&& !current.properties().servers().containsKey(server);
		return gone ? own : current;
	}

	/** The snapshot the request of {@code context} runs on; {@code null} for a context the relay did not make. */
	public static ConfigurationSnapshot of(CallContext context) {
		return context.attributes().get(ATTRIBUTE) instanceof ConfigurationSnapshot snapshot ? snapshot : null;
	}

}
