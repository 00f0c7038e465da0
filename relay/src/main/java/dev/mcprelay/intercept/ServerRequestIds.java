package dev.mcprelay.intercept;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.mcprelay.Sha256;
import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.security.RelayMac;

/**
 * The id every server-to-client request carries on its way to the client, so that the client's answer brings the
 * request back to any replica without a store (DESIGN section 7): {@value #PREFIX} followed by the server's id, the
 * method, a digest of the params and an expiry (Base64url JSON), and an HMAC over them and the server, the session
 * ({@code Mcp-Session-Id}) and the caller the request was relayed to. When the client answers (or cancels the request),
 * the relay restores the server's id, and the client-response stage gets the request.
 *
 * <p>Every server request is wrapped, whatever interceptors exist and whichever servers they apply to, so a client's
 * answer and a client's {@code notifications/cancelled} mean the same on every server and under every configuration;
 * and so an id with the prefix that does not verify for the answer's own server, session and caller, within its
 * lifetime, is no id the relay gave: it was altered, invented, minted for another session, caller or server (servers
 * number their requests from 0 per session), has expired, or comes from a replica with another secret. Such an answer
 * or cancellation is refused ({@link Origin#refused()}), never restored: what it would restore is the client's word;
 * and so is an answer under an id without the prefix ({@link #answered}), which answers no request the relay relayed.
 *
 * <p>The id never carries the params: a sampling request of 200 KB would make an id of 270 KB; nor a method longer
 * than {@value #MAX_CARRIED_METHOD} characters (none MCP defines is), which it carries as a digest, the method kept
 * with the params, so that the id's length is bounded whatever the server sends. The replica that
 * relays a request keeps its params for the id's lifetime (their bytes, at most {@value #KEPT_PARAMS_BYTES} bytes of
 * heap by what each entry costs there, {@link KeptBytes}, the oldest going first), under their digest, so the stage
 * has them when the answer comes back to it; elsewhere, or once they went, the stage has the method but no params.
 * The lifetime is {@code mcp-relay.sessions.idle-timeout}.
 *
 * <p>An id of the format relays wrote before ({@value #FORMER_PREFIX}, bound to no session and with no lifetime) is
 * still restored when its HMAC verifies, so that a server request relayed by a replica of the former version is
 * answered during a rolling upgrade; it is not trusted (the stage sees no request).
 *
 * <p>The HMAC is the relay's ({@link RelayMac}: {@code mcp-relay.sessions.secret}, the same on every replica, or a
 * random key of this process when none is configured).
 */
@Component
public class ServerRequestIds {

	static final String PREFIX = "mcp-relay.2.";

	/** The prefix of the ids relays wrote before the session binding: restored, never trusted. */
	static final String FORMER_PREFIX = "mcp-relay.1.";

	/** The most heap the params a replica keeps for the requests it relayed may take. */
	static final long KEPT_PARAMS_BYTES = 16L * 1024 * 1024;

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	/** The longest method an id carries as it is; a longer one is carried as its digest. */
	static final int MAX_CARRIED_METHOD = 64;

	/** Where a method carried as a digest is kept, beside the params (which are kept under their digest alone). */
	private static final String METHOD_KEY = "method:";

	private final RelayMac mac;

	private final Duration lifetime;

	private final Clock clock;

	/** The serialized params of the requests this replica relayed, by digest. */
	private final KeptBytes params;

	@Autowired
	ServerRequestIds(RelayMac mac, RelayProperties properties) {
		this(mac, properties.sessions().idleTimeout(), Clock.systemUTC());
	}

	ServerRequestIds(RelayMac mac, Duration lifetime, Clock clock) {
		this.mac = mac;
		this.lifetime = lifetime;
		this.clock = clock;
		this.params = new KeptBytes(KEPT_PARAMS_BYTES, lifetime);
	}

	/**
	 * A server request as a client's answer carried it back.
	 *
	 * @param id the server's own id; {@code null} when {@link #refused()}
	 * @param method the request's method; {@code null} when not trusted, or when the id carries a long method's
	 * digest and this replica does not keep that method
	 * @param params its params, when this replica still has them; {@code null} when it had none, when not trusted, or
	 * when they are not at hand
	 * @param trusted whether the id verifies for the answer's server, session and caller, within its lifetime
	 */
	public record Origin(JsonNode id, String method, ObjectNode params, boolean trusted) {

		private static final Origin REFUSED = new Origin(null, null, null, false);

		/**
		 * Whether the id has the relay's prefix but is no id the relay gave in this session: altered, invented,
		 * expired, minted for another session, caller or server, or by a replica with another secret.
		 */
		public boolean refused() {
			return id == null;
		}

	}

	/** The id the client gets for server request {@code message}, relayed in {@code context}. */
	TextNode wrap(ObjectNode message, CallContext context) {
		ObjectNode carried = JsonRpcParser.mapper().createObjectNode();
		carried.set("i", message.get("id"));
		carry(carried, message.path("method").asText(""));
		if (message.get("params") instanceof ObjectNode requestParams) {
			byte[] bytes = JsonRpcErrors.toBytes(requestParams);
			String digest = ENCODER.encodeToString(Sha256.digest(bytes));
			carried.put("d", digest);
			params.put(digest, bytes);
		}
		carried.put("e", clock.instant().plus(lifetime).getEpochSecond());
		String payload = ENCODER.encodeToString(JsonRpcErrors.toBytes(carried));
		return TextNode.valueOf(PREFIX + payload + "." + mac.sign(signed(payload, context)));
	}

	/**
	 * The request an answer's {@code id}, in {@code context}, carries: {@code null} when it is no id with the relay's
	 * prefix (a client's own), a {@linkplain Origin#refused() refusal} when it has the prefix but does not verify.
	 */
	Origin unwrap(JsonNode id, CallContext context) {
		if (id == null || !id.isTextual()) {
			return null;
		}
		String text = id.textValue();
		if (text.startsWith(FORMER_PREFIX)) {
			return formerOrigin(text.substring(FORMER_PREFIX.length()));
		}
		if (!text.startsWith(PREFIX)) {
			return null;
		}
		String token = text.substring(PREFIX.length());
		int dot = token.lastIndexOf('.');
		if (dot < 0) {
			return Origin.REFUSED;
		}
		String payload = token.substring(0, dot);
		if (!mac.verifies(signed(payload, context), token.substring(dot + 1))) {
			return Origin.REFUSED;
		}
		ObjectNode carried = carried(payload);
		if (carried == null || carried.path("e").asLong(0) < clock.instant().getEpochSecond()) {
			return Origin.REFUSED;
		}
		byte[] kept = carried.path("d").isTextual() ? params.get(carried.get("d").asText()) : null;
		return new Origin(carried.get("i"), method(carried), kept == null ? null : read(kept), true);
	}

	/**
	 * The server request a client's answer with {@code id}, in {@code context}, answers: as {@link #unwrap}, but an id
	 * without the relay's prefix is {@linkplain Origin#refused() refused} too. Every server request reaches the client
	 * under an id the relay gave it, so an answer under any other id (the server's raw id, a number, {@code null})
	 * answers no request the relay relayed: it would reach the server unchecked, with no request for the
	 * client-response stage to see. (A {@code notifications/cancelled} naming an id without the prefix cancels a
	 * request of the client's own, and is {@link #unwrap}ped.)
	 */
	Origin answered(JsonNode id, CallContext context) {
		Origin origin = unwrap(id, context);
		return origin == null ? Origin.REFUSED : origin;
	}

	/**
	 * Puts the request's method in the id: as it is when it is at most {@value #MAX_CARRIED_METHOD} characters (every
	 * method MCP defines), else as its digest ({@code "h"}), the method kept on this replica with the params, so that
	 * the id stays bounded whatever method the server names.
	 */
	private void carry(ObjectNode carried, String method) {
		if (method.length() <= MAX_CARRIED_METHOD) {
			carried.put("m", method);
			return;
		}
		byte[] bytes = method.getBytes(StandardCharsets.UTF_8);
		String digest = ENCODER.encodeToString(Sha256.digest(bytes));
		carried.put("h", digest);
		params.put(METHOD_KEY + digest, bytes);
	}

	/** The method an id carries: as it is, or by its digest when this replica still keeps it; else {@code null}. */
	private String method(ObjectNode carried) {
		if (carried.path("m").isTextual()) {
			return carried.get("m").textValue();
		}
		byte[] kept = carried.path("h").isTextual() ? params.get(METHOD_KEY + carried.get("h").textValue()) : null;
		return kept == null ? null : new String(kept, StandardCharsets.UTF_8);
	}

	/** An id of the former format: restored, untrusted, when its HMAC (over the payload alone) verifies. */
	private Origin formerOrigin(String token) {
		int dot = token.lastIndexOf('.');
		if (dot < 0 || !mac.verifies(token.substring(0, dot), token.substring(dot + 1))) {
			return Origin.REFUSED;
		}
		ObjectNode carried = carried(token.substring(0, dot));
		return carried == null ? Origin.REFUSED : new Origin(carried.get("i"), null, null, false);
	}

	/** The JSON a verified payload carries; {@code null} when it carries no valid JSON-RPC id. */
	private static ObjectNode carried(String payload) {
		try {
			JsonNode carried = JsonRpcParser.mapper().readTree(Base64.getUrlDecoder().decode(payload));
			if (!(carried instanceof ObjectNode object) || !isRequestId(object.get("i"))) {
				return null;
			}
			return object;
		}
		catch (IllegalArgumentException | IOException ex) {
			return null;
		}
	}

	/** Whether {@code id} is one a request may have: a string or an integer. */
	private static boolean isRequestId(JsonNode id) {
		return id != null && (id.isTextual() || id.isIntegralNumber());
	}

	private static ObjectNode read(byte[] params) {
		try {
			return (ObjectNode) JsonRpcParser.mapper().readTree(params);
		}
		catch (IOException ex) {
			throw new IllegalStateException("kept params no longer read", ex);
		}
	}

	/** How many requests' params this replica keeps now, and what they weigh; for tests. */
	long keptParams() {
		return params.size();
	}

	long keptParamsWeight() {
		return params.weight();
	}

	/** What the HMAC covers: the payload, and the server, session and caller it was relayed to. */
	private static String signed(String payload, CallContext context) {
		String session = context.sessionId();
		String caller = context.caller() == null ? null : context.caller().id();
		return "server-request\n" + context.server() + "\n" + (session == null ? "" : session) + "\n"
				+ (caller == null ? "" : caller) + "\n" + payload;
	}

}
