package dev.mcprelay.security;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.Caller;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SecurityMode;
import dev.mcprelay.config.SessionStoreKind;

/**
 * Binds every MCP session to the caller that opened it, without storing anything (DESIGN sections 7 and 8): in
 * {@code api-key} and {@code jwt} mode the session id a client is given is the upstream's (or the relay's own) id
 * followed by {@code .} and a {@link RelayMac} signature over the server, the caller (kind and id) and that id. When a
 * request brings the id back, the relay checks the signature against the caller that sends it and the server it
 * addresses before anything else uses the session: another caller, another server, an altered or an invented id is
 * refused as an unknown session (404), and nothing reaches the upstream. Any replica that shares
 * {@code mcp-relay.sessions.secret} verifies it.
 *
 * <p>In mode {@code none} there is no caller to bind to: ids pass through unchanged, and whoever holds an id may use
 * the session.
 */
@Component
public class SessionBinding {

	private static final Logger log = LoggerFactory.getLogger(SessionBinding.class);

	private static final char SEPARATOR = '.';

	private final boolean enabled;

	private final RelayMac mac;

	public SessionBinding(RelayProperties properties, RelayMac mac) {
		this.enabled = properties.security().mode() != SecurityMode.NONE;
		this.mac = mac;
		String secret = properties.sessions().secret();
		if (enabled && (secret == null || secret.isBlank()) && properties.sessions().store() == SessionStoreKind.REDIS) {
			log.warn("Session ids are bound to their caller with a key of this process: the sessions store is shared "
					+ "(redis), so replicas are expected; set mcp-relay.sessions.secret, the same on every replica, or "
					+ "a session opened on one replica is refused (404) on another.");
		}
	}

	/** Whether session ids are bound to callers: in every mode but {@code none}. */
	public boolean enabled() {
		return enabled;
	}

	/** The id the client gets for {@code sessionId}, a session of {@code server} opened by {@code caller}. */
	public String bind(String server, Caller caller, String sessionId) {
		return sessionId + SEPARATOR + mac.sign(signed(server, caller, sessionId));
	}

	/**
	 * The session id {@code clientId} stands for, when it is an id this relay bound for {@code caller} on
	 * {@code server}; {@code null} otherwise.
	 */
	public String unbind(String server, Caller caller, String clientId) {
		int separator = clientId.lastIndexOf(SEPARATOR);
		if (separator <= 0 || separator == clientId.length() - 1) {
			return null;
		}
		String sessionId = clientId.substring(0, separator);
		return mac.verifies(signed(server, caller, sessionId), clientId.substring(separator + 1)) ? sessionId : null;
	}

	/** What is signed: NUL-separated, so no server, caller or id can pass for another. */
	private static String signed(String server, Caller caller, String sessionId) {
		return "mcp-session\0" + server + '\0' + caller.kind() + '\0' + caller.id() + '\0' + sessionId;
	}

}
