package dev.mcprelay.intercept;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcIds;

/**
 * The requests of one POST that went upstream and are not answered yet, by id, so that a response meets the
 * response stage with its request at hand, and a stream that fails answers exactly the requests still waiting. Ids
 * compare as the upstream may read them ({@link JsonRpcIds}: {@code 1} and {@code "1"} differ, an integer past 2^53
 * and its rounding are one), and an answer under a rounded id reaches the client under the id the client sent. Used
 * from one exchange's serialized signals only.
 */
public final class PendingRequests {

	private final Map<String, McpRequest> pending = new LinkedHashMap<>();

	private AnswerWatcher watcher = AnswerWatcher.NONE;

	PendingRequests() {
	}

	/** None: a GET stream, a DELETE, or a POST of notifications. */
	public static PendingRequests none() {
		return new PendingRequests();
	}

	void add(McpRequest request) {
		pending.put(JsonRpcIds.key(request.id()), request);
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
	public McpRequest take(JsonNode id) {
		return id == null ? null : pending.remove(JsonRpcIds.key(id));
	}

	/** The one request still waiting; {@code null} when none or several are. */
	McpRequest lone() {
		return pending.size() == 1 ? pending.values().iterator().next() : null;
	}

	/** The requests still waiting, in the order they were sent. */
	public List<McpRequest> remaining() {
		return List.copyOf(pending.values());
	}

	public boolean isEmpty() {
		return pending.isEmpty();
	}

	/** Whether two JSON-RPC ids are the same, as this class compares them ({@link JsonRpcIds}). */
	public static boolean sameId(JsonNode one, JsonNode other) {
		return JsonRpcIds.same(one, other);
	}

}
