package dev.mcprelay.bridge;

import java.util.List;
import java.util.Set;

import org.springframework.http.HttpStatusCode;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * What a server's refusal tells of the generation it speaks, for {@link ServerVersions}: the versions a JSON-RPC error
 * names as supported, whether a refusal is a 2026-07-28 server's, and whether it is a session-era server's refusal of
 * a 2026-07-28 request. Reads a body already read whole; never fails (a body that is no JSON tells what its status
 * does).
 */
final class Refusals {

	/** Statuses that speak of the caller (its credentials, its rate), not of the protocol it speaks. */
	private static final Set<Integer> ABOUT_THE_CALLER = Set.of(401, 403, 407, 429);

	private Refusals() {
	}

	/** The versions a JSON-RPC error names as supported ({@code error.data.supported}); empty when it names none. */
	static List<String> supportedVersions(byte[] body) {
		return JsonTexts.of(error(body).path("data").path("supported"));
	}

	/**
	 * Whether a refusal is a 2026-07-28 server's: it names the versions it supports, or has a code only that generation
	 * has (-32020, headers that do not match the body; -32022).
	 */
	static boolean ofNewGeneration(byte[] body) {
		int code = error(body).path("code").asInt();
		return !supportedVersions(body).isEmpty() || code == -32020 || code == -32022;
	}

	/**
	 * Whether an answer refuses a 2026-07-28 request as a session-era server does: a client error (4xx) that is not the
	 * new generation's ({@link #ofNewGeneration}) nor about the caller (401, 403, 407, 429), such as a 400 for a request
	 * that came without a session; or, whatever its status, the JSON-RPC error -32601 (the method, such as
	 * {@code server/discover}, is unknown).
	 */
	static boolean bySessionEraServer(HttpStatusCode status, byte[] body) {
		if (error(body).path("code").asInt() == -32601) {
			return true;
		}
		return status.is4xxClientError() && !ABOUT_THE_CALLER.contains(status.value()) && !ofNewGeneration(body);
	}

	/**
	 * Whether a refusal is of the request's own content, which its sender chose (the relay's {@code server/discover}
	 * carries a 2025 client's {@code clientInfo} and {@code capabilities} in its envelope): the JSON-RPC error -32602,
	 * invalid params, under the request's id {@code id} (or under none). The server understood the request: its refusal tells nothing of
	 * the generation it speaks, and is the client's to read.
	 */
	static boolean ofRequestContent(byte[] body, String id) {
		String answered = answerId(body);
		return error(body).path("code").asInt() == -32602 && (answered == null || id.equals(answered));
	}

	/**
	 * Whether {@code refusal}, a 4xx a server of unknown versions answered a 2026-07-28 request ({@code sent}) with, is
	 * the server's own JSON-RPC answer to it: an error under the request's id, or of a code of the range 2026-07-28
	 * added (-32020 to -32029: a header that disagrees with the body, a client capability the request needs, ...). Such
	 * a server understood the request: the refusal is handed on, and no session is opened to probe it (a server that
	 * speaks both generations would be taken for one of the session era, and every 2026 client bridged).
	 */
	static boolean understood(byte[] sent, byte[] refusal) {
		com.fasterxml.jackson.databind.node.ObjectNode request = BridgedAnswers.parse(sent);
		com.fasterxml.jackson.databind.node.ObjectNode answer = BridgedAnswers.parse(refusal);
		if (answer == null || !answer.path("error").isObject()) {
			return false;
		}
		int code = answer.path("error").path("code").asInt(0);
		JsonNode id = request == null ? null : request.get("id");
		return (code <= -32020 && code >= -32029) || (id != null && !id.isNull() && id.equals(answer.get("id")));
	}

	private static String answerId(byte[] body) {
		try {
			JsonNode answer = body == null ? null : JsonRpcParser.mapper().readTree(body);
			return answer == null ? null : answer.path("id").asText(null);
		}
		catch (java.io.IOException | RuntimeException notJson) {
			return null;
		}
	}

	/** The JSON-RPC error {@code body} holds, or a missing node. */
	private static JsonNode error(byte[] body) {
		try {
			JsonNode answer = body == null ? null : JsonRpcParser.mapper().readTree(body);
			return answer == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : answer.path("error");
		}
		catch (java.io.IOException | RuntimeException notJson) {
			return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
		}
	}

}
