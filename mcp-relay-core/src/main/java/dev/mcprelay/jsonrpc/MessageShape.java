package dev.mcprelay.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage.Kind;

/**
 * The JSON-RPC 2.0 rules for one message, over what it holds, for {@link JsonRpcParser} (from a tree) and
 * {@link JsonRpcScanner} (from a streaming pass) alike, so that both refuse the same messages with the same words.
 */
final class MessageShape {

	private MessageShape() {
	}

	/**
	 * The kind of a message holding these members, or the first rule it breaks (in the order the rules are listed:
	 * version, method, params, request id; result or error, response id, error object).
	 *
	 * @param paramsIsContainer whether {@code params} is absent, an object or an array
	 * @param errorIsObject whether {@code error} is absent or an object
	 */
	static Kind of(JsonNode version, JsonNode id, JsonNode method, boolean paramsIsContainer,
			boolean hasResult, boolean hasError, boolean errorIsObject, String where) throws JsonRpcParseException {
		if (version == null || !"2.0".equals(version.textValue())) {
			throw invalid(where + "\"jsonrpc\" must be \"2.0\"");
		}
		if (method != null) {
			if (!method.isTextual() || method.textValue().isEmpty()) {
				throw invalid(where + "\"method\" must be a non-empty string");
			}
			if (!paramsIsContainer) {
				throw invalid(where + "\"params\" must be an object");
			}
			if (id == null) {
				return Kind.NOTIFICATION;
			}
			if (!id.isTextual() && !id.isIntegralNumber()) {
				throw invalid(where + "a request \"id\" must be a string or an integer");
			}
			return Kind.REQUEST;
		}
		if (hasResult == hasError) {
			throw invalid(where + "a message needs \"method\", or exactly one of \"result\" and \"error\"");
		}
		if (id == null || !(id.isTextual() || id.isIntegralNumber() || (hasError && id.isNull()))) {
			throw invalid(where + "a response \"id\" must be a string or an integer");
		}
		if (!errorIsObject) {
			throw invalid(where + "\"error\" must be an object");
		}
		return Kind.RESPONSE;
	}

	static JsonRpcParseException invalid(String detail) {
		return new JsonRpcParseException("Invalid Request: " + detail, false);
	}

}
