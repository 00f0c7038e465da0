package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.security.RelayMac;

/**
 * The {@code requestState} the relay gives a 2026-07-28 client with an {@code input_required} result of its own
 * (direction 2 of the bridge: a 2025 server asked the client something while it answered), and takes back on the
 * client's retry: what the relay needs to continue the call (which held call, which server requests the answers are
 * for), as JSON, signed with the relay's key ({@link RelayMac}: HMAC-SHA-256 with {@code sessions.secret}, the same
 * on every replica and across reloads), so that the client carries it without being able to read anything secret
 * from it or change it. {@link #verify} gives back only a state this relay signed, unchanged:
 * a forged, altered, truncated or foreign one is {@code null}. The form is {@code mcp-relay-1.} + Base64url of the
 * JSON + {@code .} + Base64url of the MAC of both.
 */
final class RequestStates {

	private static final String VERSION = "mcp-relay-1.";

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private final RelayMac mac;

	/** @param mac the relay's key: every relay that shares it verifies the states any of them signed */
	RequestStates(RelayMac mac) {
		this.mac = mac;
	}

	/** States signed with a random key this process alone knows (tests). */
	static RequestStates random() {
		return new RequestStates(new RelayMac((String) null));
	}

	/** Whether {@code token} has the form of a state the relay signs (whoever made it). */
	static boolean hasForm(String token) {
		return token != null && token.startsWith(VERSION);
	}

	/** {@code state} as a signed token. */
	String sign(ObjectNode state) {
		String signed = VERSION + ENCODER.encodeToString(state.toString().getBytes(StandardCharsets.UTF_8));
		return signed + '.' + mac.sign(signed);
	}

	/** The state {@code token} holds, when this relay signed it and nothing in it changed; else {@code null}. */
	ObjectNode verify(String token) {
		if (token == null || !token.startsWith(VERSION)) {
			return null;
		}
		int dot = token.lastIndexOf('.');
		if (dot <= VERSION.length()) {
			return null;
		}
		String signed = token.substring(0, dot);
		if (!mac.verifies(signed, token.substring(dot + 1))) {
			return null;
		}
		byte[] payload;
		try {
			payload = Base64.getUrlDecoder().decode(signed.substring(VERSION.length()));
		}
		catch (IllegalArgumentException notBase64) {
			return null;
		}
		try {
			JsonNode state = JsonRpcParser.mapper().readTree(payload);
			return state instanceof ObjectNode object ? object : null;
		}
		catch (java.io.IOException notJson) {
			return null;
		}
	}

}
