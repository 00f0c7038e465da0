package dev.mcprelay.jsonrpc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage.Kind;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * Validates an upstream's body or an SSE event's data without building its JSON tree: the messages it gives read
 * their trees from the body on demand ({@link JsonRpcMessage#node()}). Thread-safe.
 */
public final class JsonRpcScanner {

	private static final ObjectMapper MAPPER = JsonRpcParser.mapper();

	/** Reads one value in the middle of a body (the body's end is checked once, by the caller). */
	private static final ObjectReader VALUE_READER = MAPPER.reader()
		.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

	private JsonRpcScanner() {
	}

	/**
	 * Validates an upstream's body or an SSE event's data exactly as {@link JsonRpcParser#parse(byte[])} does,
	 * without building its JSON tree: a streaming pass reads each message's {@code jsonrpc}, {@code id} and
	 * {@code method}, checks the shape of the rest and skips it (still checking every number and duplicate key, as
	 * the tree would: a message's own members by the scan, which reads their names anyway, what they hold by
	 * Jackson's detection, which keeps a set of names for each object of three names or more and so is not asked for
	 * a message's own: a response's {@code jsonrpc}, {@code id} and {@code result}). Each message reads its tree from
	 * the body when {@link JsonRpcMessage#node()} is first called, which a response that no interceptor sees never
	 * does.
	 *
	 * @throws JsonRpcParseException for any body {@link JsonRpcParser#parse(byte[])} refuses, with the same message;
	 * also for a body that is not UTF-8 JSON text ({@link JsonText}: ill-formed UTF-8, UTF-16 or UTF-32, a
	 * byte-order mark), which is never relayed
	 */
	public static JsonRpcPayload scan(byte[] body) throws JsonRpcParseException {
		JsonText.requireUtf8(body);
		JsonRpcParseException firstInvalid = null;
		List<JsonRpcMessage> messages = new ArrayList<>(1);
		boolean batch;
		try (JsonParser parser = MAPPER.createParser(body).disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)) {
			BodyOffsets offsets = BodyOffsets.of(parser, body);
			JsonToken root = parser.nextToken();
			if (root == null) {
				throw new JsonRpcParseException("Parse error: the body is empty", true);
			}
			batch = root == JsonToken.START_ARRAY;
			if (batch) {
				for (int i = 0; parser.nextToken() != JsonToken.END_ARRAY; i++) {
					try {
						messages.add(scanMessage(parser, offsets, body, "batch element " + i + ": "));
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
					messages.add(scanMessage(parser, offsets, body, ""));
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
	private static JsonRpcMessage scanMessage(JsonParser parser, BodyOffsets offsets, byte[] body, String where)
			throws IOException, JsonRpcParseException {
		int start = (int) offsets.byteOffset(parser.currentTokenLocation());
		if (parser.currentToken() != JsonToken.START_OBJECT) {
			if (parser.currentToken() == JsonToken.START_ARRAY) {
				// a batch element that is an array: what it holds is checked by Jackson, as a member's value is
				parser.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
			}
			skipValue(parser);
			throw MessageShape.invalid(where + "a JSON-RPC message is a JSON object");
		}
		JsonNode version = null;
		JsonNode id = null;
		JsonNode method = null;
		boolean paramsIsContainer = true;
		boolean hasResult = false;
		boolean hasError = false;
		boolean errorIsObject = true;
		int seen = 0;
		Set<String> others = null;
		while (parser.nextToken() == JsonToken.FIELD_NAME) {
			String field = parser.currentName();
			int member = memberBit(field);
			if (member != 0 ? (seen & member) != 0 : others != null && others.contains(field)) {
				throw new JsonParseException(parser, "Duplicate field '" + field + "'");
			}
			if (member != 0) {
				seen |= member;
			}
			else {
				others = others == null ? new HashSet<>(4) : others;
				others.add(field);
			}
			JsonToken value = parser.nextToken();
			if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
				// what a member holds is checked by Jackson: a detector on this container, its children's under it
				parser.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
			}
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
		int end = (int) offsets.byteOffset(parser.currentLocation());
		Kind kind = MessageShape.of(version, id, method, paramsIsContainer, hasResult, hasError, errorIsObject, where);
		return new JsonRpcMessage(kind, kind == Kind.NOTIFICATION ? null : id,
				kind == Kind.RESPONSE ? null : method.textValue(), hasError, body, start, end - start);
	}

	/** The bit of a message's member the rules name, by which the scan tells it was seen; 0 for any other member. */
	private static int memberBit(String field) {
		return switch (field) {
			case "jsonrpc" -> 1;
			case "method" -> 2;
			case "id" -> 4;
			case "params" -> 8;
			case "result" -> 16;
			case "error" -> 32;
			default -> 0;
		};
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

}
