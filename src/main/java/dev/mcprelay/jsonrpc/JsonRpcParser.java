package dev.mcprelay.jsonrpc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.mcprelay.jsonrpc.JsonRpcMessage.Kind;

/**
 * Parses HTTP bodies and SSE event data into {@link JsonRpcPayload}s, enforcing the JSON-RPC 2.0 message shapes: into
 * trees ({@link #parse}, {@link #parseClientBody}), or by a validating scan whose messages read their trees on demand
 * ({@link #scan}). Thread-safe.
 *
 * @see <a href="https://www.jsonrpc.org/specification">JSON-RPC 2.0</a>
 */
public final class JsonRpcParser {

	private static final ObjectMapper MAPPER = JsonMapper.builder()
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
		.build();

	/** Reads one value in the middle of a body (the body's end is checked once, by the caller). */
	private static final ObjectReader VALUE_READER = MAPPER.reader()
		.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

	private JsonRpcParser() {
	}

	/** The mapper used for every JSON-RPC body: numbers keep their precision, trailing content is rejected. */
	public static ObjectMapper mapper() {
		return MAPPER;
	}

	/**
	 * Parses a body whose every message must be valid (an upstream's, an SSE event's) into trees at once, for a reader
	 * that needs every message's tree; {@link #scan} validates the same way and defers the trees.
	 */
	public static JsonRpcPayload parse(byte[] body) throws JsonRpcParseException {
		return parse(body, false);
	}

	/**
	 * Parses a client's POST body. A batch whose elements are not all valid messages is still parsed: each invalid
	 * element becomes an {@link JsonRpcPayload#invalidAnswers() error answer} (with the element's id when it has a
	 * usable one), so that the valid ones can go on (JSON-RPC 2.0, section 6).
	 *
	 * @throws JsonRpcParseException when the body is not well-formed UTF-8, not JSON (or holds a number out of range),
	 * is an empty batch, or a single invalid message
	 */
	public static JsonRpcPayload parseClientBody(byte[] body) throws JsonRpcParseException {
		return parse(body, true);
	}

	private static JsonRpcPayload parse(byte[] body, boolean answerInvalidElements) throws JsonRpcParseException {
		if (answerInvalidElements && !Utf8.isWellFormed(body)) {
			throw new JsonRpcParseException("Parse error: the body is not well-formed UTF-8", true);
		}
		JsonNode root;
		try (JsonParser parser = MAPPER.createParser(body)) {
			root = MAPPER.readTree(parser);
		}
		catch (IOException ex) {
			throw new JsonRpcParseException("Parse error: the body is not valid JSON", true);
		}
		catch (NumberFormatException ex) {
			// valid JSON, but a number no decimal can hold (an exponent such as 1e9999999999)
			throw new JsonRpcParseException("Parse error: a number in the body is out of range", true);
		}
		if (root == null || root.isMissingNode()) {
			throw new JsonRpcParseException("Parse error: the body is empty", true);
		}
		if (root.isArray()) {
			if (root.isEmpty()) {
				throw new JsonRpcParseException("Invalid Request: an empty batch", false);
			}
			List<JsonRpcMessage> messages = new ArrayList<>(root.size());
			List<ObjectNode> invalid = new ArrayList<>();
			for (int i = 0; i < root.size(); i++) {
				try {
					messages.add(toMessage(root.get(i), "batch element " + i + ": "));
				}
				catch (JsonRpcParseException ex) {
					if (!answerInvalidElements) {
						throw ex;
					}
					invalid.add(JsonRpcErrors.error(usableId(root.get(i)), JsonRpcErrorCodes.INVALID_REQUEST,
							ex.getMessage(), (JsonNode) null));
				}
			}
			return new JsonRpcPayload(body, messages, true, invalid);
		}
		return new JsonRpcPayload(body, List.of(toMessage(root, "")), false);
	}

	/** The id of an invalid element, when it is one a client could match: a string or an integer. */
	private static JsonNode usableId(JsonNode element) {
		JsonNode id = element instanceof ObjectNode object ? object.get("id") : null;
		return id != null && (id.isTextual() || id.isIntegralNumber()) ? id : null;
	}

	private static JsonRpcMessage toMessage(JsonNode node, String where) throws JsonRpcParseException {
		if (!(node instanceof ObjectNode object)) {
			throw invalid(where + "a JSON-RPC message is a JSON object");
		}
		JsonNode params = object.get("params");
		JsonNode error = object.get("error");
		Kind kind = shape(object.get("jsonrpc"), object.get("id"), object.get("method"),
				params == null || params.isObject() || params.isArray(), object.has("result"), error != null,
				error == null || error.isObject(), where);
		return new JsonRpcMessage(kind, object);
	}

	/**
	 * The JSON-RPC 2.0 shape rules, over what a message holds: its kind, or the first rule it breaks.
	 *
	 * @param paramsIsContainer whether {@code params} is absent, an object or an array
	 * @param errorIsObject whether {@code error} is absent or an object
	 */
	private static Kind shape(JsonNode version, JsonNode id, JsonNode method, boolean paramsIsContainer,
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

	/**
	 * Validates an upstream's body or an SSE event's data exactly as {@link #parse(byte[])} does, without building
	 * its JSON tree: a streaming pass reads each message's {@code jsonrpc}, {@code id} and {@code method}, checks the
	 * shape of the rest and skips it (still checking every number and duplicate key, as the tree would). Each
	 * message reads its tree from the body when {@link JsonRpcMessage#node()} is first called, which a response that
	 * no interceptor sees never does.
	 *
	 * @throws JsonRpcParseException for any body {@link #parse(byte[])} refuses, with the same message; also for a
	 * body that is not well-formed UTF-8, which is never relayed
	 */
	public static JsonRpcPayload scan(byte[] body) throws JsonRpcParseException {
		if (!Utf8.isWellFormed(body)) {
			throw new JsonRpcParseException("Parse error: the body is not well-formed UTF-8", true);
		}
		JsonRpcParseException firstInvalid = null;
		List<JsonRpcMessage> messages = new ArrayList<>(1);
		boolean batch;
		try (JsonParser parser = MAPPER.createParser(body)) {
			JsonToken root = parser.nextToken();
			if (root == null) {
				throw new JsonRpcParseException("Parse error: the body is empty", true);
			}
			batch = root == JsonToken.START_ARRAY;
			if (batch) {
				for (int i = 0; parser.nextToken() != JsonToken.END_ARRAY; i++) {
					try {
						messages.add(scanMessage(parser, body, "batch element " + i + ": "));
					}
					catch (JsonRpcParseException ex) {
						firstInvalid = firstInvalid == null ? ex : firstInvalid;
					}
				}
				if (messages.isEmpty() && firstInvalid == null) {
					firstInvalid = new JsonRpcParseException("Invalid Request: an empty batch", false);
				}
			}
			else {
				try {
					messages.add(scanMessage(parser, body, ""));
				}
				catch (JsonRpcParseException ex) {
					firstInvalid = ex;
				}
			}
			if (parser.nextToken() != null) {
				throw new JsonRpcParseException("Parse error: the body is not valid JSON", true);
			}
		}
		catch (IOException ex) {
			throw new JsonRpcParseException("Parse error: the body is not valid JSON", true);
		}
		catch (NumberFormatException ex) {
			throw new JsonRpcParseException("Parse error: a number in the body is out of range", true);
		}
		if (firstInvalid != null) {
			throw firstInvalid;
		}
		return new JsonRpcPayload(body, messages, batch);
	}

	/**
	 * Scans the message whose first token the parser is at, leaving the parser at its last token, so that the next
	 * message can be read even when this one breaks a rule.
	 */
	private static JsonRpcMessage scanMessage(JsonParser parser, byte[] body, String where)
			throws IOException, JsonRpcParseException {
		int start = (int) parser.currentTokenLocation().getByteOffset();
		if (parser.currentToken() != JsonToken.START_OBJECT) {
			skipValue(parser);
			throw invalid(where + "a JSON-RPC message is a JSON object");
		}
		JsonNode version = null;
		JsonNode id = null;
		JsonNode method = null;
		boolean paramsIsContainer = true;
		boolean hasResult = false;
		boolean hasError = false;
		boolean errorIsObject = true;
		while (parser.nextToken() == JsonToken.FIELD_NAME) {
			String field = parser.currentName();
			JsonToken value = parser.nextToken();
			switch (field) {
				case "jsonrpc" -> version = textOrMarker(parser);
				case "method" -> method = textOrMarker(parser);
				case "id" -> id = idNode(parser);
				default -> {
					if (field.equals("params")) {
						paramsIsContainer = value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY;
					}
					else if (field.equals("result")) {
						hasResult = true;
					}
					else if (field.equals("error")) {
						hasError = true;
						errorIsObject = value == JsonToken.START_OBJECT;
					}
					skipValue(parser);
				}
			}
		}
		int end = (int) parser.currentLocation().getByteOffset();
		Kind kind = shape(version, id, method, paramsIsContainer, hasResult, hasError, errorIsObject, where);
		return new JsonRpcMessage(kind, kind == Kind.NOTIFICATION ? null : id,
				kind == Kind.RESPONSE ? null : method.textValue(), hasError, body, start, end - start);
	}

	/**
	 * The string value the parser is at; for any other value, which the rules refuse wherever a string is wanted, a
	 * marker that is no text, once the value is passed.
	 */
	private static JsonNode textOrMarker(JsonParser parser) throws IOException {
		if (parser.currentToken() == JsonToken.VALUE_STRING) {
			return TextNode.valueOf(parser.getText());
		}
		skipValue(parser);
		return NullNode.getInstance();
	}

	/** The id the parser is at, as the tree would hold it (an integer in the smallest node that holds it). */
	private static JsonNode idNode(JsonParser parser) throws IOException {
		JsonToken token = parser.currentToken();
		if (token == JsonToken.VALUE_STRING) {
			return TextNode.valueOf(parser.getText());
		}
		if (token == JsonToken.VALUE_NUMBER_INT) {
			return switch (parser.getNumberType()) {
				case INT -> IntNode.valueOf(parser.getIntValue());
				case LONG -> LongNode.valueOf(parser.getLongValue());
				default -> BigIntegerNode.valueOf(parser.getBigIntegerValue());
			};
		}
		return VALUE_READER.readTree(parser);
	}

	/**
	 * Moves past the value whose first token the parser is at, reading every decimal as the tree would (so that one
	 * out of range fails here, not later when a tree is read).
	 */
	private static void skipValue(JsonParser parser) throws IOException {
		int depth = 0;
		JsonToken token = parser.currentToken();
		while (true) {
			if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
				depth++;
			}
			else if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
				depth--;
			}
			else if (token == JsonToken.VALUE_NUMBER_FLOAT) {
				parser.getDecimalValue();
			}
			if (depth == 0) {
				return;
			}
			token = parser.nextToken();
		}
	}

	private static JsonRpcParseException invalid(String detail) {
		return new JsonRpcParseException("Invalid Request: " + detail, false);
	}

}
