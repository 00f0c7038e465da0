package dev.mcprelay.jsonrpc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcJson;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage.Kind;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * Parses HTTP bodies and SSE event data into {@link JsonRpcPayload}s of JSON trees, enforcing the JSON-RPC 2.0 message
 * shapes ({@link MessageShape}); {@link JsonRpcScanner} validates the same way and defers the trees. Thread-safe.
 *
 * @see <a href="https://www.jsonrpc.org/specification">JSON-RPC 2.0</a>
 */
public final class JsonRpcParser {

	private static final ObjectMapper MAPPER = JsonRpcJson.mapper();

	/**
	 * Builds a body's tree refusing a member name an object already holds as the tree is built (the new member
	 * replaces nothing: {@code ObjectNode.replace} finds the old one, for free), instead of by the parser's own
	 * detection, which keeps a set of names for every object of three names or more (a tools/call's message is one)
	 * beside the tree's own map of them. The one is as strict as the other: a duplicate anywhere, however deep, is
	 * refused as not JSON.
	 */
	private static final ObjectReader TREE_READER = MAPPER.reader()
		.with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

	/** The {@code error.data} of the answer to a batch element that is no JSON-RPC message. */
	private static final Map<String, String> INVALID_ELEMENT = Map.of("reason", "invalid_request");

	/** The longest id an error message quotes whole. */
	private static final int MAX_QUOTED_ID = 64;

	private JsonRpcParser() {
	}

	/** The mapper used for every JSON-RPC body ({@link JsonRpcJson#mapper()}). */
	public static ObjectMapper mapper() {
		return MAPPER;
	}

	/**
	 * Parses a body whose every message must be valid (an upstream's, an SSE event's) into trees at once, for a reader
	 * that needs every message's tree; {@link JsonRpcScanner#scan} validates the same way and defers the trees.
	 */
	public static JsonRpcPayload parse(byte[] body) throws JsonRpcParseException {
		return parse(body, false);
	}

	/**
	 * Parses a client's POST body. A batch whose elements are not all valid messages is still parsed: each invalid
	 * element becomes an {@link JsonRpcPayload#invalidAnswers() error answer} (with the element's id when it has a
	 * usable one), so that the valid ones can go on (JSON-RPC 2.0, section 6).
	 *
	 * <p>A batch whose requests share an id is refused whole: answers are paired with their requests by id, so two
	 * requests under one id would pair an answer with the wrong request (and with that request's response stage), and
	 * leave the other unanswered. Ids compare as the upstream may read them ({@link JsonRpcIds}): {@code 1} and
	 * {@code "1"} differ, but {@code 9007199254740993} and {@code 9007199254740992}, one number to a server that reads
	 * numbers as doubles, are one id.
	 *
	 * <p>A message without an id that names a request method of MCP is invalid here (a request needs an id).
	 *
	 * @throws JsonRpcParseException when the body is not UTF-8 JSON text ({@link JsonText}), not JSON (or holds a number out of range),
	 * is an empty batch, a batch whose requests share an id (as {@link JsonRpcIds} compares them), or a single
	 * invalid message
	 */
	public static JsonRpcPayload parseClientBody(byte[] body) throws JsonRpcParseException {
		return parseClientBody(body, HeapBudget.NONE);
	}

	/**
	 * As {@link #parseClientBody(byte[])}, charging the memory the body's tree takes to {@code budget} as the tree is
	 * built, before each part is made ({@link WeighingParser}): a budget with no room stops the parse with its own
	 * exception, which propagates as it is.
	 */
	public static JsonRpcPayload parseClientBody(byte[] body, HeapBudget budget) throws JsonRpcParseException {
		return parse(body, true, budget);
	}

	private static JsonRpcPayload parse(byte[] body, boolean answerInvalidElements) throws JsonRpcParseException {
		return parse(body, answerInvalidElements, HeapBudget.NONE);
	}

	private static JsonRpcPayload parse(byte[] body, boolean answerInvalidElements, HeapBudget budget)
			throws JsonRpcParseException {
		JsonText.requireUtf8(body);
		JsonNode root;
		try (WeighingParser parser = new WeighingParser(treeParser(body), body, budget)) {
			root = TREE_READER.readTree(parser);
			parser.settle();
		}
		catch (StreamConstraintsException ex) {
			// valid JSON past a bound of the parser's: nesting, a number's digits, a member name's length
			throw new JsonRpcParseException("Invalid Request: the body is JSON past what the relay reads ("
					+ boundPassed(ex) + ")", false);
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
			Map<String, BatchRequest> requestIds = answerInvalidElements ? new HashMap<>() : null;
			for (int i = 0; i < root.size(); i++) {
				try {
					JsonRpcMessage message = toMessage(root.get(i), "batch element " + i + ": ");
					if (answerInvalidElements) {
						requireIdOnRequestMethod(message, "batch element " + i + ": ");
					}
					if (requestIds != null && message.isRequest()) {
						requireNewId(requestIds, message.id(), i);
					}
					messages.add(message);
				}
				catch (DuplicateRequestId ex) {
					throw ex;
				}
				catch (JsonRpcParseException ex) {
					if (!answerInvalidElements) {
						throw ex;
					}
					// the reason a single message's error carries too: what a client's error handling keys on
					invalid.add(JsonRpcErrors.error(usableId(root.get(i)), JsonRpcErrorCodes.INVALID_REQUEST,
							ex.getMessage(), INVALID_ELEMENT));
				}
			}
			return new JsonRpcPayload(body, messages, true, invalid);
		}
		JsonRpcMessage message = toMessage(root, "");
		if (answerInvalidElements) {
			requireIdOnRequestMethod(message, "");
		}
		return new JsonRpcPayload(body, List.of(message), false);
	}

	/**
	 * Jackson's parser of {@code body} for {@link #TREE_READER}: without the parser's own duplicate detection, which
	 * the tree's building does instead.
	 */
	private static JsonParser treeParser(byte[] body) throws IOException {
		return MAPPER.createParser(body).disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
	}

	/**
	 * Refuses a client's message without an id that names a request method of the MCP schema
	 * ({@link McpRequestMethods}): no notification MCP defines, and forwarded, a generic JSON-RPC server would execute
	 * it past every request stage (the tool access lists, the reserved-argument refusal, rate limits), answering
	 * nobody. Alone it is answered 400; in a batch it is answered on its own and the others go on.
	 */
	private static void requireIdOnRequestMethod(JsonRpcMessage message, String where) throws JsonRpcParseException {
		if (message.kind() == Kind.NOTIFICATION && McpRequestMethods.isRequest(message.method())) {
			throw MessageShape.invalid(where + message.method() + " is a request and needs an id; it is never "
					+ "forwarded as a notification");
		}
	}

	/**
	 * Records the id of the request at batch element {@code index}; refuses the batch when an earlier request has it,
	 * or has an id the upstream may not tell from it ({@link JsonRpcIds}: {@code 9007199254740993} and
	 * {@code 9007199254740992} are one number to a server that reads numbers as doubles).
	 */
	private static void requireNewId(Map<String, BatchRequest> requestIds, JsonNode id, int index)
			throws JsonRpcParseException {
		BatchRequest first = requestIds.putIfAbsent(JsonRpcIds.key(id), new BatchRequest(id, index));
		if (first == null) {
			return;
		}
		JsonNode earlier = first.id();
		if (earlier.equals(id)) {
			throw new DuplicateRequestId("Invalid Request: batch elements " + first.index() + " and " + index
					+ " share the request id " + quoted(id) + "; give each request of a batch its own id");
		}
		throw new DuplicateRequestId("Invalid Request: batch elements " + first.index() + " and " + index
				+ " have the request ids " + quoted(earlier) + " and " + quoted(id) + ", one number to a server that "
				+ "reads numbers as doubles (as JSON.parse does), which would answer both under one id; give each "
				+ "request of a batch an id of its own, a string or an integer within 2^53");
	}

	/** Which of the parser's bounds {@code ex} names, in words (Jackson's own message names its internals). */
	private static String boundPassed(StreamConstraintsException ex) {
		StreamReadConstraints bounds = MAPPER.getFactory().streamReadConstraints();
		String message = String.valueOf(ex.getOriginalMessage());
		if (message.startsWith("Document nesting depth")) {
			return "nested more than " + bounds.getMaxNestingDepth() + " levels deep";
		}
		if (message.startsWith("Number value length")) {
			return "a number of more than " + bounds.getMaxNumberLength() + " characters";
		}
		if (message.startsWith("Name length")) {
			return "a member name of more than " + bounds.getMaxNameLength() + " characters";
		}
		return "a value larger than the JSON parser reads";
	}

	/** A request of a batch: its id, and where it stands. */
	private record BatchRequest(JsonNode id, int index) {
	}

	private static String quoted(JsonNode id) {
		String quoted = id.toString();
		return quoted.length() > MAX_QUOTED_ID ? quoted.substring(0, MAX_QUOTED_ID) + "..." : quoted;
	}

	/** A batch whose requests share an id: refused whole, never answered element by element. */
	private static final class DuplicateRequestId extends JsonRpcParseException {

		DuplicateRequestId(String message) {
			super(message, false);
		}

	}

	/** The id of an invalid element, when it is one a client could match: a string or an integer. */
	private static JsonNode usableId(JsonNode element) {
		JsonNode id = element instanceof ObjectNode object ? object.get("id") : null;
		return id != null && (id.isTextual() || id.isIntegralNumber()) ? id : null;
	}

	private static JsonRpcMessage toMessage(JsonNode node, String where) throws JsonRpcParseException {
		if (!(node instanceof ObjectNode object)) {
			throw MessageShape.invalid(where + "a JSON-RPC message is a JSON object");
		}
		JsonNode params = object.get("params");
		JsonNode error = object.get("error");
		Kind kind = MessageShape.of(object.get("jsonrpc"), object.get("id"), object.get("method"),
				params == null || params.isObject() || params.isArray(), object.has("result"), error != null,
				error == null || error.isObject(), where);
		return new JsonRpcMessage(kind, object);
	}


}
