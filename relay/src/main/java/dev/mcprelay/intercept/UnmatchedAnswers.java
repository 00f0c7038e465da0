package dev.mcprelay.intercept;

import java.util.Map;

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
 * What becomes of an upstream's answer that matches no request waiting for one, so that no answer reaches the client
 * without the stage of the request it answers. Such answers come from an upstream that rounds ids (a JSON.parse
 * server turns {@code 9007199254740993} into {@code 9007199254740992}), on a GET stream, on a stream resumed with
 * {@code Last-Event-ID} (the request went with an earlier connection), or from a server that misbehaves. In order:
 * <ol>
 * <li><b>paired</b>: on a POST whose one request still waits, the answer is that request's (the transport answers a
 * POST's requests on its own response), unless its shape tells another method: it meets that request's stage, under
 * the request's id;</li>
 * <li><b>inferred</b>: a result holding the member its method's result requires ({@code tools}, {@code prompts},
 * {@code resources}, {@code resourceTemplates}, {@code contents}, {@code messages}, {@code content}, or
 * {@code protocolVersion} with {@code serverInfo}) meets that method's response stage, with a request the relay infers
 * (method and id, no params);</li>
 * <li><b>relayed</b>: an answer whose method cannot be known is relayed when no interceptor of the server waits where
 * it could belong (the catch-all response stage for a result, the error stage for an error);</li>
 * <li><b>dropped</b>: otherwise it is held back, logged at WARN (server and id, escaped) and counted.</li>
 * </ol>
 * A message of the upstream's without an id that names a request method (a request that skipped its stage) is dropped
 * the same way. Every case is counted in {@value RelayMeters#UNMATCHED_ANSWERS} by server and handling.
 */
@Component
public class UnmatchedAnswers {

	private static final Logger log = LoggerFactory.getLogger(UnmatchedAnswers.class);

	/** The member a method's result requires, by method (MCP schema, 2025-11-25). */
	private static final Map<String, String> METHOD_BY_MEMBER = Map.of("tools", "tools/list", "prompts",
			"prompts/list", "resources", "resources/list", "resourceTemplates", "resources/templates/list", "contents",
			"resources/read", "messages", "prompts/get", "content", "tools/call");

	private static final String DESCRIPTION = "Upstream answers that matched no request waiting for one, by how the "
			+ "relay handled them: paired with the one request waiting, inferred from their shape, relayed (no stage "
			+ "could apply) or dropped";

	/** How an unmatched message was handled: the values of the {@value RelayMeters#HANDLING} tag. */
	enum Handling {

		PAIRED, INFERRED, RELAYED, DROPPED;

		String tag() {
			return name().toLowerCase(java.util.Locale.ROOT);
		}

	}

	private final KeptCounters counters;

	UnmatchedAnswers(MeterRegistry registry, RelayProperties properties) {
		this.counters = new KeptCounters(registry);
		properties.servers().keySet().forEach(server -> counters.declare(RelayMeters.UNMATCHED_ANSWERS, DESCRIPTION,
				RelayMeters.SERVER, server, RelayMeters.HANDLING, Handling.DROPPED.tag()));
	}

	/**
	 * The request {@code answer}, which matched none waiting by id, is taken to answer: the one request of a POST
	 * still waiting, which it now answers under that request's id (the watcher is told); {@code null} when not
	 * exactly one waits.
	 */
	McpRequest pair(JsonRpcMessage answer, PendingRequests pending, CallContext context) {
		McpRequest lone = pending.lone();
		if (lone == null) {
			return null;
		}
		String shaped = methodByShape(answer);
		if (shaped != null && !shaped.equals(lone.method())) {
			// a tool's output under the id of a ping is no ping's answer: it meets the stage its shape tells
			return null;
		}
		JsonNode sent = answer.id();
		answer.node().set("id", lone.id());
		log.debug("'{}' answered with id {} where its one request waiting has id {}: taken as that request's answer",
				context.server(), LogText.json(sent), LogText.json(lone.id()));
		counted(context, Handling.PAIRED);
		return pending.answer(answer);
	}

	/**
	 * The request a result without its request at hand answers, judged by the member its method's result requires;
	 * {@code null} for an error, or a result that holds none of them or several.
	 */
	McpRequest infer(CallContext context, JsonRpcMessage answer) {
		String method = methodByShape(answer);
		if (method == null) {
			return null;
		}
		ObjectNode request = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
		request.set("id", answer.id());
		request.put("method", method);
		counted(context, Handling.INFERRED);
		return MethodRoutes.request(method).view().create(context, request);
	}

	/**
	 * The method whose result {@code answer} is, by the member that result requires; {@code null} when none or several.
	 */
	private static String methodByShape(JsonRpcMessage answer) {
		if (answer.isError() || !(answer.node().get("result") instanceof ObjectNode result)) {
			return null;
		}
		String method = result.has("protocolVersion") && result.has("serverInfo") ? "initialize" : null;
		for (Map.Entry<String, String> member : METHOD_BY_MEMBER.entrySet()) {
			if (result.get(member.getKey()) instanceof ArrayNode) {
				if (method != null) {
					return null;
				}
				method = member.getValue();
			}
		}
		return method;
	}

	/** An unmatched answer whose method cannot be known, relayed: no interceptor waits where it could belong. */
	void relayed(CallContext context) {
		counted(context, Handling.RELAYED);
	}

	/** An unmatched answer (or a request without an id) held back from the client: logged and counted. */
	void dropped(CallContext context, JsonRpcMessage message, boolean onStream) {
		counted(context, Handling.DROPPED);
		if (message.isResponse()) {
			log.warn("Dropped an answer from '{}' with id {}{}: it answers no request waiting for one, and its method "
					+ "cannot be known, so no interceptor stage could see it", context.server(),
					LogText.json(message.id()), onStream ? " on a stream" : "");
		}
		else {
			log.warn("Dropped a message from '{}' of method {} without an id: {} is a request, which needs an id and "
					+ "its stage", context.server(), LogText.quote(message.method()), LogText.quote(message.method()));
		}
	}

	private void counted(CallContext context, Handling handling) {
		counters.increment(RelayMeters.UNMATCHED_ANSWERS, DESCRIPTION, RelayMeters.SERVER, serverTag(context),
				RelayMeters.HANDLING, handling.tag());
	}

	private static String serverTag(CallContext context) {
		return context.server() == null ? "unknown" : context.server();
	}

}
