package dev.mcprelay.intercept;

import java.util.Base64;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.security.RelayMac;

/**
 * Carries a server-to-client request in its own id, so that the client's answer brings the request back to any
 * replica without a store (DESIGN section 7): the id the client sees is {@value #PREFIX} followed by the original id,
 * the method and the params (Base64url JSON) and an HMAC-SHA256 over them. When the client answers, the relay
 * restores the server's id and hands the request to the client-response stage.
 *
 * <p>The HMAC is the relay's ({@link RelayMac}: {@code mcp-relay.sessions.secret}, the same on every replica, or a
 * random key of this process when none is configured): a token from another replica is then still restored (the
 * server gets its answer) but not trusted (the stage sees no request), and a token a client altered is never trusted.
 */
@Component
public class ServerRequestIds {

	static final String PREFIX = "mcp-relay.1.";

	private final RelayMac mac;

	ServerRequestIds(RelayMac mac) {
		this.mac = mac;
	}

	/** A server request as a client answer carried it back. */
	public record Origin(JsonNode id, String method, ObjectNode params, boolean trusted) {
	}

	/** The id the client gets for server request {@code message}. */
	TextNode wrap(ObjectNode message) {
		ObjectNode carried = JsonRpcParser.mapper().createObjectNode();
		carried.set("i", message.get("id"));
		carried.set("m", message.get("method"));
		carried.set("p", message.get("params"));
		String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(JsonRpcErrors.toBytes(carried));
		return TextNode.valueOf(PREFIX + payload + "." + mac.sign(payload));
	}

	/** The request an answer's {@code id} carries; {@code null} when it is no id the relay gave. */
	Origin unwrap(JsonNode id) {
		if (id == null || !id.isTextual() || !id.textValue().startsWith(PREFIX)) {
			return null;
		}
		String token = id.textValue().substring(PREFIX.length());
		int dot = token.lastIndexOf('.');
		if (dot < 0) {
			return null;
		}
		String payload = token.substring(0, dot);
		try {
			JsonNode carried = JsonRpcParser.mapper().readTree(Base64.getUrlDecoder().decode(payload));
			if (!(carried instanceof ObjectNode object) || !object.has("i")) {
				return null;
			}
			boolean trusted = mac.verifies(payload, token.substring(dot + 1));
			JsonNode params = object.get("p");
			return new Origin(object.get("i"), object.path("m").asText(null),
					params instanceof ObjectNode p ? p : null, trusted);
		}
		catch (IllegalArgumentException | java.io.IOException ex) {
			return null;
		}
	}

}
