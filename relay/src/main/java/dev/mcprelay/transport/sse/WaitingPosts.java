package dev.mcprelay.transport.sse;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcIds;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.transport.HeldMessages;
import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.UpstreamTransportException.Kind;

/**
 * The client POSTs of one {@link BridgedSession} that wait for what the server's event stream will bring them: each
 * under the ids of its requests, and under the progress tokens those requests carry.
 *
 * <p>A POST is registered ({@link #expect}) before it is sent, so that no answer can come before its place exists, and
 * forgotten ({@link #forget}) when it no longer waits. Ids (and progress tokens) compare as the server may read them
 * ({@link #key}): a POST with a request whose id is already waiting is refused whole (409
 * {@code request_id_in_flight}), and so is one whose progress token another POST's request carries (409
 * {@code progress_token_in_flight}: its progress would reach one of the two), nothing of it kept. Safe for the stream's thread and the POSTs' threads at once.
 */
final class WaitingPosts {

	private final String serverId;

	private final long maxHeldBytes;

	private final Map<String, PendingPost> byId = new ConcurrentHashMap<>();

	private final Map<String, PendingPost> byProgressToken = new ConcurrentHashMap<>();

	/**
	 * @param serverId the session's server, named in refusals
	 * @param maxHeldBytes what one POST may hold for its client ({@link HeldLimits#maxBytes()})
	 */
	WaitingPosts(String serverId, long maxHeldBytes) {
		this.serverId = serverId;
		this.maxHeldBytes = maxHeldBytes;
	}

	/**
	 * Registers a POST's requests.
	 *
	 * @param onOverflow what the POST fails with when its answers overflow what it may hold
	 * @throws UpstreamTransportException when a request's id is already waiting (409 {@code request_id_in_flight}) or
	 * its progress token is another waiting POST's (409 {@code progress_token_in_flight}); nothing of the POST is then
	 * registered
	 */
	PendingPost expect(JsonRpcPayload payload, Supplier<RuntimeException> onOverflow) {
		Map<String, JsonNode> ids = new LinkedHashMap<>();
		List<String> tokens = new ArrayList<>();
		String initializeId = null;
		for (JsonRpcMessage message : payload.messages()) {
			if (message.isRequest()) {
				ids.put(key(message.id()), message.id());
				if ("initialize".equals(message.method())) {
					initializeId = key(message.id());
				}
				JsonNode token = message.node().path("params").path("_meta").path("progressToken");
				if (!token.isMissingNode() && !token.isNull()) {
					tokens.add(key(token));
				}
			}
		}
		PendingPost post = new PendingPost(List.copyOf(ids.keySet()), tokens, initializeId,
				new HeldMessages(PendingPost.CAPACITY, maxHeldBytes), onOverflow);
		for (Map.Entry<String, JsonNode> id : ids.entrySet()) {
			if (byId.putIfAbsent(id.getKey(), post) != null) {
				forget(post);
				throw new UpstreamTransportException(Kind.CONFLICT, "request_id_in_flight",
						"A request with id " + id.getValue() + " (or one a server that reads numbers as doubles cannot "
								+ "tell from it) is already waiting for its answer in this session of '" + serverId
								+ "'; give each request of a session its own id.");
			}
		}
		for (String token : tokens) {
			PendingPost holder = byProgressToken.putIfAbsent(token, post);
			if (holder != null && holder != post) {
				forget(post);
				throw new UpstreamTransportException(Kind.CONFLICT, "progress_token_in_flight",
						"A request carrying this progress token (or one a server that reads numbers as doubles cannot "
								+ "tell from it) is already waiting for its answer in this session of '" + serverId
								+ "'; progress tokens must be unique across a session's active requests.");
			}
		}
		return post;
	}

	/** The POST no longer waits (answered, timed out, or its client went away). */
	void forget(PendingPost post) {
		post.ids().forEach(key -> byId.remove(key, post));
		post.progressTokens().forEach(token -> byProgressToken.remove(token, post));
	}

	/**
	 * Hands a response to the POST waiting under its id, and forgets that POST once every one of its requests is
	 * answered.
	 *
	 * @return false when nothing waits for it (its POST timed out or went away)
	 */
	boolean answer(JsonRpcMessage response, byte[] json) {
		String key = key(response.id());
		PendingPost post = byId.remove(key);
		if (post == null) {
			return false;
		}
		post.answer(key, json, response.isError());
		if (post.ids().stream().noneMatch(byId::containsKey)) {
			forget(post);
		}
		return true;
	}

	/** Hands a progress notification to the POST whose request carried its token; false when none did. */
	boolean progress(JsonRpcMessage notification, byte[] json) {
		JsonNode token = notification.node().path("params").path("progressToken");
		PendingPost post = token.isMissingNode() ? null : byProgressToken.get(key(token));
		if (post == null) {
			return false;
		}
		post.progress(json);
		return true;
	}

	/** Every waiting POST fails with {@code failure} and is forgotten. */
	void failAll(UpstreamTransportException failure) {
		new ArrayList<>(byId.values()).forEach(post -> {
			forget(post);
			post.fail(failure);
		});
	}

	boolean isEmpty() {
		return byId.isEmpty();
	}

	/**
	 * A JSON-RPC id (or progress token) as a map key, as the server may read it ({@link JsonRpcIds#key}): {@code 1} and
	 * {@code "1"} differ, an integer past 2^53 and its rounding are one.
	 */
	static String key(JsonNode id) {
		return id == null ? "j:null" : JsonRpcIds.key(id);
	}

}
