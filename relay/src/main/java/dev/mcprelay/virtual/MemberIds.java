package dev.mcprelay.virtual;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.security.RelayMac;

/**
 * The ids a virtual server gives the client for what its members send (DESIGN sections 7 and 11), carried in the id
 * itself so that any replica can route them back without a store:
 * <ul>
 * <li>a member's request to the client (sampling, elicitation, roots) gets {@value #PREFIX}, the member, the
 * original id (Base64url JSON) and an HMAC over them and the virtual session; the client's answer goes to that member
 * with the original id, and an id the relay never gave (altered, invented, from another session) is refused;</li>
 * <li>an event of the merged server stream gets the position of every member's stream so far (Base64url JSON of
 * member to member event id), so that {@code Last-Event-ID} resumes each member where it stopped;</li>
 * <li>an event of a call's stream (a POST's answer) gets its member's position in that stream under the member's
 * {@link #callKey call key}, never under the member's own id: it names where the call's stream stopped, not the
 * member's server stream, so a GET that resumes after it reads the call's stream again from there (missed progress,
 * then the result) beside the member's server stream ({@link MergedSession}), on any replica. A merged stream's
 * event carries a call key too while the call's stream is read into it.</li>
 * </ul>
 * A call key is no server id ({@code #} is in none), so a relay that knows no call keys reads none of them.
 */
@Component
class MemberIds {

	static final String PREFIX = "mcp-relay.v1.";

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

	private final RelayMac mac;

	MemberIds(RelayMac mac) {
		this.mac = mac;
	}

	/** A member's request to the client, as the client may answer it. */
	record MemberRequestId(String member, JsonNode id) {
	}

	/** The id the client sees for {@code member}'s request {@code id} in virtual session {@code sessionId}. */
	TextNode wrap(String sessionId, String member, JsonNode id) {
		String payload = ENCODER.encodeToString(JsonRpcErrors.toBytes(id));
		return TextNode.valueOf(PREFIX + member + "." + payload + "." + mac.sign(signed(sessionId, member, payload)));
	}

	/** The member request a client's answer carries; {@code null} when its id is none the relay gave this session. */
	MemberRequestId unwrap(String sessionId, JsonNode id) {
		if (id == null || !id.isTextual() || !id.textValue().startsWith(PREFIX)) {
			return null;
		}
		String[] parts = id.textValue().substring(PREFIX.length()).split("\\.");
		if (parts.length < 3) {
			return null;
		}
		// A member id may hold dots: the payload and signature are the last two parts.
		String signature = parts[parts.length - 1];
		String payload = parts[parts.length - 2];
		String member = String.join(".", java.util.Arrays.copyOf(parts, parts.length - 2));
		if (!mac.verifies(signed(sessionId, member, payload), signature)) {
			return null;
		}
		try {
			return new MemberRequestId(member, JsonRpcParser.mapper().readTree(DECODER.decode(payload)));
		}
		catch (IllegalArgumentException | IOException ex) {
			return null;
		}
	}

	private static String signed(String sessionId, String member, String payload) {
		return "virtual-request\n" + sessionId + "\n" + member + "\n" + payload;
	}

	private static final String CALL = "#call:";

	/** The key of {@code member}'s call stream in an event id's positions: no server id is one. */
	static String callKey(String member) {
		return CALL + member;
	}

	/** Whether {@code key} of an event id's positions names a call's stream ({@link #callKey}). */
	static boolean isCallKey(String key) {
		return key.startsWith(CALL);
	}

	/** The member whose stream {@code key} of an event id's positions names (its own id, or a call key's member). */
	static String memberOf(String key) {
		return isCallKey(key) ? key.substring(CALL.length()) : key;
	}

	/** The merged stream's event id for the members' positions {@code positions} (member to its last event id). */
	static String eventId(Map<String, String> positions) {
		ObjectNode node = JsonRpcParser.mapper().createObjectNode();
		positions.forEach(node::put);
		return ENCODER.encodeToString(JsonRpcErrors.toBytes(node));
	}

	/** The members' positions a merged stream's event id holds; empty for anything else. */
	static Map<String, String> positions(String eventId) {
		Map<String, String> positions = new LinkedHashMap<>();
		if (eventId == null || eventId.isEmpty()) {
			return positions;
		}
		try {
			JsonNode node = JsonRpcParser.mapper().readTree(new String(DECODER.decode(eventId), StandardCharsets.UTF_8));
			if (node instanceof ObjectNode object) {
				object.properties().forEach(field -> {
					if (field.getValue().isTextual()) {
						positions.put(field.getKey(), field.getValue().textValue());
					}
				});
			}
		}
		catch (IllegalArgumentException | IOException ex) {
			positions.clear();
		}
		return positions;
	}

}
