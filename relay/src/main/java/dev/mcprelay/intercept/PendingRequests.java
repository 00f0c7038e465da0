package dev.mcprelay.intercept;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcIds;

/**
 * The requests of one POST that went upstream and are not answered yet, by id, so that a response meets the
 * response stage with its request at hand, and a stream that fails answers exactly the requests still waiting. Ids
 * compare as the upstream may read them ({@link JsonRpcIds}: {@code 1} and {@code "1"} differ, an integer past 2^53
 * and its rounding are one), and an answer under a rounded id reaches the client under the id the client sent. Each
 * request is answered once: the ids answered are remembered, so that a second answer under one of them is told apart.
 * Thread-safe: the answers come on the upstream's signals, while a client that goes away ends the exchange on its own.
 */
public final class PendingRequests {

	/** Sized for the one request most POSTs hold; a batch's grows it. */
	private final Map<String, McpRequest> pending = new LinkedHashMap<>(4);

	/** The key of the first id answered; {@code null} before the first answer. */
	private String firstAnswered;

	/** The keys of the ids answered after the first; made with the second answer (a batch's), never for one request. */
	private Set<String> answered;

	private final CallContext context;

	private final ResumableRequests resumable;

	private AnswerWatcher watcher = AnswerWatcher.NONE;

	private boolean sentRequests;

	/**
	 * @param context the exchange's context
	 * @param resumable where the requests a stream leaves unanswered are kept; {@code null} to keep none
	 */
	PendingRequests(CallContext context, ResumableRequests resumable) {
		this.context = context;
		this.resumable = resumable;
	}

	/** None: a GET stream, a DELETE, or a POST of notifications. */
	public static PendingRequests none() {
		return new PendingRequests(null, null);
	}

	synchronized void add(McpRequest request) {
		pending.put(JsonRpcIds.key(request.id()), request);
		sentRequests = true;
	}

	/** From now on, {@code watcher} is told of each answer and each other message the upstream sends back. */
	public void watch(AnswerWatcher watcher) {
		this.watcher = watcher;
	}

	/** The watcher of what the upstream sends back ({@link AnswerWatcher#NONE} unless one was set). */
	public AnswerWatcher watcher() {
		return watcher;
	}

	/**
	 * The request {@code answer} answers, now answered, and the answer under the request's id as the client wrote it
	 * (the upstream may have rounded it); the watcher is told. {@code null} when it answers none that is waiting.
	 */
	public McpRequest answer(JsonRpcMessage answer) {
		McpRequest request = take(answer.id());
		if (request != null) {
			if (!request.id().equals(answer.id())) {
				answer.node().set("id", request.id());
			}
			watcher.answered(answer);
		}
		return request;
	}

	/** The request {@code id} answers, now answered; {@code null} when none is waiting for it. */
	public synchronized McpRequest take(JsonNode id) {
		if (id == null) {
			return null;
		}
		String key = JsonRpcIds.key(id);
		McpRequest request = pending.remove(key);
		if (request != null) {
			if (firstAnswered == null) {
				firstAnswered = key;
			}
			else {
				if (answered == null) {
					answered = new HashSet<>(4);
				}
				answered.add(key);
			}
		}
		return request;
	}

	/** The one request still waiting; {@code null} when none or several are. */
	synchronized McpRequest lone() {
		return pending.size() == 1 ? pending.values().iterator().next() : null;
	}

	/** Whether a request of this POST with {@code id} was answered already. */
	synchronized boolean wasAnswered(JsonNode id) {
		if (id == null || firstAnswered == null) {
			return false;
		}
		String key = JsonRpcIds.key(id);
		return firstAnswered.equals(key) || answered != null && answered.contains(key);
	}

	/**
	 * Whether any request of this exchange went upstream: an answer on its response that matches none is a stray;
	 * on a response to no request (a GET stream), it answers a request of an earlier exchange.
	 */
	synchronized boolean sentRequests() {
		return sentRequests;
	}

	/** The requests still waiting, in the order they were sent. */
	public synchronized List<McpRequest> remaining() {
		return List.copyOf(pending.values());
	}

	public synchronized boolean isEmpty() {
		return pending.isEmpty();
	}

	/**
	 * The exchange's event stream ended with these requests still waiting, and the relay answered none of them: the
	 * client went away, or the server closed the stream before answering, as it may, for the client to resume it with
	 * {@code Last-Event-ID} on a GET. They are kept for their answers on that GET ({@link ResumableRequests}).
	 */
	public void leftUnanswered() {
		if (resumable != null) {
			resumable.keep(context, remaining());
		}
	}

	/** Whether two JSON-RPC ids are the same, as this class compares them ({@link JsonRpcIds}). */
	public static boolean sameId(JsonNode one, JsonNode other) {
		return JsonRpcIds.same(one, other);
	}

}
