package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.session.SessionIds;

/**
 * The {@code requestState} the relay gives a 2026-07-28 client with an {@code input_required} result of its own
 * (direction 2 of the bridge: a 2025 server asked the client something while it answered), and takes back on the
 * client's retry: what the relay needs to continue the call (which held call, which server requests the answers are
 * for), as JSON, signed with HMAC-SHA-256 under a key of the relay's, so that the client carries it without being able
 * to read anything secret from it or change it. {@link #verify} gives back only a state this relay signed, unchanged:
 * a forged, altered, truncated or foreign one is {@code null}. The form is {@code mcp-relay-1.} + Base64url of the
 * JSON + {@code .} + Base64url of the MAC of both.
 */
final class RequestStates {

	private static final String VERSION = "mcp-relay-1.";

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private final SecretKeySpec key;

	/** @param key the HMAC key: at least 32 bytes */
	RequestStates(byte[] key) {
		if (key.length < 32) {
			throw new IllegalArgumentException("A requestState key needs at least 32 bytes");
		}
		this.key = new SecretKeySpec(key.clone(), "HmacSHA256");
	}

	/** States signed with a key of 256 random bits this relay alone knows (a retry must come back to it). */
	static RequestStates random() {
		return new RequestStates(Base64.getUrlDecoder().decode(SessionIds.mint()));
	}

	/** Whether {@code token} has the form of a state the relay signs (whoever made it). */
	static boolean hasForm(String token) {
		return token != null && token.startsWith(VERSION);
	}

	/** {@code state} as a signed token. */
	String sign(ObjectNode state) {
		String signed = VERSION + ENCODER.encodeToString(state.toString().getBytes(StandardCharsets.UTF_8));
		return signed + '.' + ENCODER.encodeToString(mac(signed));
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
		byte[] given;
		byte[] payload;
		try {
			given = Base64.getUrlDecoder().decode(token.substring(dot + 1));
			payload = Base64.getUrlDecoder().decode(signed.substring(VERSION.length()));
		}
		catch (IllegalArgumentException notBase64) {
			return null;
		}
		if (!MessageDigest.isEqual(given, mac(signed))) {
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

	private byte[] mac(String signed) {
		try {
			Mac mac = Mac.getInstance("HmacSHA256");
			mac.init(key);
			return mac.doFinal(signed.getBytes(StandardCharsets.US_ASCII));
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HmacSHA256 is not available", ex);
		}
	}

}
