package dev.mcprelay.intercept;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.chain.MethodRoutes;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.metrics.KeptCounters;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.text.LogText;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What becomes of an upstream's answer whose id names no request waiting for one (ids compare as the upstream reads
 * them, so an id it rounded is no such answer: {@link PendingRequests}), so that no answer reaches the client without
 * the stage of the request it answers, and no request is answered twice. On the response to a POST that sent
 * requests, only that POST's requests are answered:
 * <ul>
 * <li><b>paired</b>: an error under id {@code null} (the server could not read the id) answers the one request still
 * waiting, under its id; with several waiting, or none, it is dropped;</li>
 * <li><b>dropped</b>: any other answer: a second answer under an id already answered, or an answer under an id no
 * request of the POST had.</li>
 * </ul>
 * On a stream of no request of its own (a GET stream, resumed with {@code Last-Event-ID} or not), answers belong to
 * requests of earlier exchanges:
 * <ol>
 * <li><b>resumed</b>: the answer of a request this replica relayed on a POST stream of the same session that ended
 * before its answer ({@link ResumableRequests}) meets that request's stage, with the request at hand;</li>
 * <li><b>inferred</b>: a result holding the member its method's result requires ({@code tools}, {@code prompts},
 * {@code resources}, {@code resourceTemplates}, {@code contents}, {@code messages}, {@code content}, or
 * {@code protocolVersion} with {@code serverInfo}) meets that method's response stage, with a request the relay infers
 * (method and id, no params: a {@code tools/call} result's {@code toolName()} is {@code null});</li>
 * <li><b>relayed</b>: an answer whose method cannot be known meets the stage that takes an answer of any method, with a
 * request of unknown method ({@code method()} is {@code null}): the error stage for an error, the catch-all response
 * stage for a result; as they decide, it reaches the client (a {@code ping}'s empty result, a
 * {@code completion/complete} result, an error);</li>
 * <li><b>dropped</b>: a result whose shape could answer a method with a typed response stage at which an interceptor
 * of the server waits, but does not tell which: it holds the members of several methods' results (a {@code content}
 * and a {@code tools}), or a {@code structuredContent} without {@code content} (a tool's output, as a lenient client
 * reads a tool's result); the stage that could apply never sees it, so the client never gets it.</li>
 * </ol>
 * A dropped answer is logged at WARN (server, id and why, escaped). A message of the upstream's without an id that
 * names a request method (a request that skipped its stage) is dropped the same way. Every case is counted in
 * {@value RelayMeters#UNMATCHED_ANSWERS} by server and handling.
 */
@Component
public class UnmatchedAnswers {

	private static final Logger log = LoggerFactory.getLogger(UnmatchedAnswers.class);

	/** The member a method's result requires, by method (MCP schema, 2025-11-25). */
	private static final Map<String, String> METHOD_BY_MEMBER = Map.of("tools", "tools/list", "prompts",
			"prompts/list", "resources", "resources/list", "resourceTemplates", "resources/templates/list", "contents",
			"resources/read", "messages", "prompts/get", "content", "tools/call");

	private static final String DESCRIPTION = "Upstream answers that matched no request waiting for one, by how the "
			+ "relay handled them: paired (an error without id, with the one request waiting), resumed (a request an "
			+ "earlier stream left unanswered), inferred from their shape, relayed after the stage that takes any "
			+ "method, or dropped";

	/** How an unmatched message was handled: the values of the {@value RelayMeters#HANDLING} tag. */
	enum Handling {

		PAIRED, RESUMED, INFERRED, RELAYED, DROPPED;

		String tag() {
			return name().toLowerCase(java.util.Locale.ROOT);
		}

	}

	private final KeptCounters counters;

	private final InterceptorChains chains;

	private final ResumableRequests resumable;

	UnmatchedAnswers(MeterRegistry registry, RelayProperties properties, InterceptorChains chains,
			ResumableRequests resumable) {
		this.counters = new KeptCounters(registry);
		this.chains = chains;
		this.resumable = resumable;
		properties.servers().keySet().forEach(server -> counters.declare(RelayMeters.UNMATCHED_ANSWERS, DESCRIPTION,
				RelayMeters.SERVER, server, RelayMeters.HANDLING, Handling.DROPPED.tag()));
	}

	/**
	 * The request {@code answer}, which matched none waiting by id, answers before any stage runs, now answered under
	 * its id: on a POST, the one request waiting for an error under id {@code null}; on a stream of no request of its
	 * own, a request an earlier stream of the session left unanswered. {@code null} otherwise.
	 */
	McpRequest known(JsonRpcMessage answer, PendingRequests pending, CallContext context) {
		if (pending.sentRequests()) {
			McpRequest lone = answer.isError() && answer.id().isNull() ? pending.lone() : null;
			if (lone == null) {
				return null;
			}
			answer.node().set("id", lone.id());
			counted(context, Handling.PAIRED);
			return pending.answer(answer);
		}
		McpRequest resumed = resumable.take(context, answer.id());
		if (resumed != null) {
			answer.node().set("id", resumed.id());
			counted(context, Handling.RESUMED);
		}
		return resumed;
	}

	/**
	 * What answers {@code answer}, which answers no request known, after the remote-message stage: on a POST, nothing
	 * (dropped); else a request inferred from its shape, or one of unknown method when the stage that takes any
	 * method may see it; {@code null} when it is dropped (logged and counted).
	 */
	McpRequest unknown(JsonRpcMessage answer, PendingRequests pending, CallContext context, boolean onStream) {
		if (pending.sentRequests()) {
			dropped(context, answer, onStream, pending.wasAnswered(answer.id())
					? "a second answer under the id of a request it answered already"
					: "it answers no request of the POST");
			return null;
		}
		Set<String> named = methodsByShape(answer);
		String method = named.size() == 1 ? named.iterator().next() : null;
		Set<String> couldBe = named.isEmpty() && answer.node().path("result").has("structuredContent")
				? Set.of("tools/call") : named;
		if (method == null && waitsAtResponseStageOfAny(couldBe, context)) {
			dropped(context, answer, onStream, "its method cannot be known, and an interceptor waits at the response "
					+ "stage of " + String.join(" or ", new TreeSet<>(couldBe)) + ", which its shape could answer");
			return null;
		}
		ObjectNode request = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
		request.set("id", answer.id());
		if (method != null) {
			request.put("method", method);
		}
		counted(context, method != null ? Handling.INFERRED : Handling.RELAYED);
		return MethodRoutes.request(method).view().create(context, request);
	}

	private boolean waitsAtResponseStageOfAny(Set<String> methods, CallContext context) {
		for (String method : methods) {
			if (!chains.chain(MethodRoutes.response(method).stage(), context).isEmpty()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The methods whose result {@code answer} could be by the member each requires: none for an error, or a result
	 * that holds none of them; several for one that holds the members of several.
	 */
	private static Set<String> methodsByShape(JsonRpcMessage answer) {
		if (answer.isError() || !(answer.node().get("result") instanceof ObjectNode result)) {
			return Set.of();
		}
		Set<String> methods = new HashSet<>();
		if (result.has("protocolVersion") && result.has("serverInfo")) {
			methods.add("initialize");
		}
		for (Map.Entry<String, String> member : METHOD_BY_MEMBER.entrySet()) {
			if (result.get(member.getKey()) instanceof ArrayNode) {
				methods.add(member.getValue());
			}
		}
		return methods;
	}

	/**
	 * An answer a transport dropped before any stage (the legacy bridge: an answer on a session's stream under an id
	 * no POST of the session waits for), counted as {@code dropped} like one dropped here; the transport logs it.
	 */
	public void droppedByTransport(String server) {
		counters.increment(RelayMeters.UNMATCHED_ANSWERS, DESCRIPTION, RelayMeters.SERVER, server, RelayMeters.HANDLING,
				Handling.DROPPED.tag());
	}

	/** A message of the upstream's without an id that names a request method: held back, logged and counted. */
	void droppedRequest(CallContext context, JsonRpcMessage message) {
		counted(context, Handling.DROPPED);
		log.warn("Dropped a message from '{}' of method {} without an id: {} is a request, which needs an id and "
				+ "its stage", context.server(), LogText.quote(message.method()), LogText.quote(message.method()));
	}

	private void dropped(CallContext context, JsonRpcMessage answer, boolean onStream, String why) {
		counted(context, Handling.DROPPED);
		JsonNode id = answer.id();
		log.warn("Dropped an answer from '{}' with id {}{}: {}", context.server(), LogText.json(id),
				onStream ? " on a stream" : "", why);
	}

	private void counted(CallContext context, Handling handling) {
		counters.increment(RelayMeters.UNMATCHED_ANSWERS, DESCRIPTION, RelayMeters.SERVER, serverTag(context),
				RelayMeters.HANDLING, handling.tag());
	}

	private static String serverTag(CallContext context) {
		return context.server() == null ? "unknown" : context.server();
	}

}
