package dev.mcprelay.intercept;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.chain.MethodRoutes;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.jsonrpc.JsonRpcIds;
import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * The requests a POST's event stream left unanswered, so that their answers, when the server sends them on a GET
 * stream of the same session (the stream resumed with {@code Last-Event-ID}, as MCP's Streamable HTTP transport has a
 * client do after a stream ended early), meet their response stage with the request at hand, as they would have on
 * the POST: a {@code tools/call} result meets the {@code tools/call} stage with its tool's name, a {@code ping}'s
 * empty result the catch-all stage as a {@code ping}'s.
 *
 * <p>A request is kept when its stream ended without its answer and without an answer of the relay's (the client went
 * away, or the server closed the stream), per server, session, caller and id ({@link JsonRpcIds}), as it went
 * upstream; for {@code sessions.idle-timeout}, at most {@value #MAX_HEAP_BYTES} bytes of heap by what each entry costs
 * there ({@link KeptBytes}), the oldest going first. It is taken by its answer: a request is answered once. Two
 * requests kept under one id (two POSTs of the session used it, or ids the upstream cannot tell apart) are neither
 * taken: an answer under that id is handled as one of a request not known. A request without a session (MCP
 * 2026-07-28) is never kept: such a client resumes nothing. Kept by the replica that relayed the POST: an answer
 * resumed on another replica is handled as {@link UnmatchedAnswers} says for an answer whose request is not known.
 */
@Component
public class ResumableRequests {

	/** The most heap the kept requests may take. */
	static final long MAX_HEAP_BYTES = 16L * 1024 * 1024;

	/** What is kept under an id two requests left unanswered had: neither is the answer's request. */
	private static final byte[] AMBIGUOUS = new byte[0];

	private final KeptBytes requests;

	@Autowired
	ResumableRequests(RelayProperties properties) {
		this(properties.sessions().idleTimeout());
	}

	ResumableRequests(Duration lifetime) {
		this.requests = new KeptBytes(MAX_HEAP_BYTES, lifetime);
	}

	/** Keeps {@code unanswered}, requests sent in {@code context}, for their answers on a later stream. */
	void keep(CallContext context, List<McpRequest> unanswered) {
		if (context == null || context.sessionId() == null) {
			return;
		}
		for (McpRequest request : unanswered) {
			String key = key(context, request.id());
			byte[] kept = JsonRpcErrors.toBytes(request.json());
			byte[] earlier = requests.putIfAbsent(key, kept);
			if (earlier != null && !Arrays.equals(earlier, kept)) {
				// two POSTs of the session left a request under one id (as the upstream reads ids): an answer under
				// it could be either's, so it meets the stage of neither, as an answer of a request not known
				requests.put(key, AMBIGUOUS);
			}
		}
	}

	/**
	 * The request an answer under {@code id} on a stream of {@code context}'s session answers, as it was sent (its
	 * typed view, in {@code context}), no longer kept; {@code null} when none is kept.
	 */
	McpRequest take(CallContext context, JsonNode id) {
		if (id == null || context.sessionId() == null) {
			return null;
		}
		byte[] kept = requests.take(key(context, id));
		if (kept == null || kept == AMBIGUOUS) {
			return null;
		}
		try {
			ObjectNode request = (ObjectNode) JsonRpcParser.mapper().readTree(kept);
			return MethodRoutes.request(request.path("method").asText(null)).view().create(context, request);
		}
		catch (IOException ex) {
			throw new IllegalStateException("a kept request no longer reads", ex);
		}
	}

	private static String key(CallContext context, JsonNode id) {
		String caller = context.caller() == null ? "" : context.caller().id();
		return context.server() + "\n" + context.sessionId() + "\n" + (caller == null ? "" : caller) + "\n"
				+ JsonRpcIds.key(id);
	}

}
