package dev.mcprelay.virtual;

import java.io.IOException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.security.RelayMac;

/**
 * The cursor of a merged list's next page: which members have more, and each one's own cursor, opaque to the client
 * and signed by the relay ({@link RelayMac}) over the virtual server, the session, the caller and the list method, so
 * that a forged, altered or foreign cursor (another session's, or, for an MCP 2026-07-28 client without a session,
 * another caller's) is recognised and refused (-32602), never passed to a member.
 */
@Component
class VirtualCursor {

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private final RelayMac mac;

	VirtualCursor(RelayMac mac) {
		this.mac = mac;
	}

	/** The cursor for the members' next pages ({@code next}: member to its cursor). */
	String encode(VirtualCall call, String method, Map<String, String> next) {
		ObjectNode node = JsonRpcParser.mapper().createObjectNode();
		next.forEach(node::put);
		String payload = ENCODER.encodeToString(JsonRpcErrors.toBytes(node));
		return payload + "." + mac.sign(signed(call, method, payload));
	}

	/** The members' cursors {@code cursor} holds; {@code null} when it is no cursor the relay gave for this list. */
	Map<String, String> decode(VirtualCall call, String method, String cursor) {
		int dot = cursor.lastIndexOf('.');
		if (dot <= 0 || !mac.verifies(signed(call, method, cursor.substring(0, dot)), cursor.substring(dot + 1))) {
			return null;
		}
		try {
			JsonNode node = JsonRpcParser.mapper().readTree(Base64.getUrlDecoder().decode(cursor.substring(0, dot)));
			if (!(node instanceof ObjectNode object)) {
				return null;
			}
			Map<String, String> members = new LinkedHashMap<>();
			object.properties().forEach(field -> members.put(field.getKey(), field.getValue().asText()));
			return members;
		}
		catch (IllegalArgumentException | IOException ex) {
			return null;
		}
	}

	private static String signed(VirtualCall call, String method, String payload) {
		String caller = call.callerId() == null ? "" : call.callerId();
		return "virtual-cursor\n" + call.server().id() + "\n" + call.sessionId() + "\n" + caller.length() + ":" + caller
				+ "\n" + method + "\n" + payload;
	}

}
