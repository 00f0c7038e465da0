package dev.mcprelay.api;

import java.util.function.Function;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcJson;

/**
 * What every interceptor view has in common: the message's JSON, the {@link CallContext} it travels in, and whether
 * a setter changed it.
 *
 * <p>Getters hand out copies, decoded values or read-only views ({@link JsonView}: {@code paramsView()},
 * {@code argumentsView()}, which read the message in place without a copy), so nothing read can change the message.
 * Setters write into the message's original JSON tree, so every field no type models ({@code _meta}, extensions)
 * stays where it was; only a message a setter touched is re-encoded, every other message is relayed byte for byte.
 */
public abstract class MessageView {

	private final CallContext context;

	private final ObjectNode message;

	private boolean changed;

	MessageView(CallContext context, ObjectNode message) {
		this.context = context;
		this.message = message;
	}

	public CallContext context() {
		return context;
	}

	/** The upstream server's id; short for {@code context().server()}. */
	public String server() {
		return context.server();
	}

	/** The message's JSON-RPC id, or {@code null} for a notification. */
	public JsonNode id() {
		return message.get("id");
	}

	/**
	 * The method the message is about: its own for a request or notification; for a response or an error, the
	 * method of the request it answers ({@code null} when it answers none of this client request).
	 */
	public abstract String method();

	/** A copy of the whole message as JSON, for inspection. */
	public ObjectNode json() {
		return message.deepCopy();
	}

	/** Whether a setter changed the message, so that it will be re-encoded. */
	public boolean isChanged() {
		return changed;
	}

	/** The live message tree; only for the relay and for setters of subclasses. */
	ObjectNode message() {
		return message;
	}

	/**
	 * Marks the message changed, so that the relay re-encodes it. Every setter does this itself; the relay calls it
	 * when it changes a message in place (a server request's own id restored in the client's answer).
	 */
	public void markChanged() {
		changed = true;
	}

	/** The live object under {@code field}, created when absent. */
	ObjectNode objectField(String field) {
		JsonNode node = message.get(field);
		if (node instanceof ObjectNode object) {
			return object;
		}
		return message.putObject(field);
	}

	/** A copy of the object under {@code field}, an empty object when absent or not an object. */
	ObjectNode objectFieldCopy(String field) {
		JsonNode node = message.get(field);
		return node instanceof ObjectNode object ? object.deepCopy() : message.objectNode();
	}

	static String text(JsonNode parent, String field) {
		JsonNode node = parent == null ? null : parent.get(field);
		return node == null || !node.isTextual() ? null : node.textValue();
	}

	/** {@code value} as JSON, MCP schema types with their kind wherever they sit ({@link JsonRpcJson#toTree}). */
	static JsonNode toJson(Object value) {
		return JsonRpcJson.toTree(value);
	}

	/**
	 * {@code json} decoded as {@code type}; when it does not fit, the error {@code onMismatch} makes of the decoder's
	 * message.
	 */
	static <T> T decode(JsonNode json, Class<T> type, Function<String, RuntimeException> onMismatch) {
		try {
			return JsonRpcJson.mapper().treeToValue(json, type);
		}
		catch (JsonProcessingException ex) {
			throw onMismatch.apply(ex.getOriginalMessage());
		}
	}

}
