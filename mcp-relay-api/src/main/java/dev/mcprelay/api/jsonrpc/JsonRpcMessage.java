package dev.mcprelay.api.jsonrpc;

import java.io.IOException;
import java.io.UncheckedIOException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One validated JSON-RPC 2.0 message: a request, a notification or a response.
 *
 * <p>A message the relay scanned from an upstream's body knows its kind, id and method from the scan
 * alone and reads its JSON tree from the body's bytes the first time {@link #node()} is called: a response nobody
 * inspects beyond its id is never turned into a tree. Once read, the tree is the message: {@link #id()} and
 * {@link #method()} read it, so that a change made through it shows. Not thread-safe; a message travels one reactive
 * chain, which hands it from thread to thread safely.
 */
public final class JsonRpcMessage {

	/** The three shapes of a JSON-RPC message. */
	public enum Kind {
		/** Has a method and an id: expects a response. */
		REQUEST,
		/** Has a method and no id: expects nothing back. */
		NOTIFICATION,
		/** Has an id and a result or an error. */
		RESPONSE
	}

	private final Kind kind;

	private final JsonNode scannedId;

	private final String scannedMethod;

	private final boolean error;

	private final byte[] source;

	private final int offset;

	private final int length;

	private ObjectNode node;

	/** A message whose tree is at hand: one parsed whole, or one the relay wrote. */
	public JsonRpcMessage(Kind kind, ObjectNode node) {
		this.kind = kind;
		this.node = node;
		this.scannedId = null;
		this.scannedMethod = null;
		this.error = kind == Kind.RESPONSE && node.has("error");
		this.source = null;
		this.offset = 0;
		this.length = 0;
	}

	/** A message the relay wrote itself (an error, a notice, an answer), of the kind its members make it. */
	public static JsonRpcMessage written(ObjectNode node) {
		Kind kind = !node.has("method") ? Kind.RESPONSE : node.has("id") ? Kind.REQUEST : Kind.NOTIFICATION;
		return new JsonRpcMessage(kind, node);
	}

	/** A scanned message: what the scan found, and where its bytes are for the tree when it is asked for. */
	public JsonRpcMessage(Kind kind, JsonNode id, String method, boolean error, byte[] source, int offset, int length) {
		this.kind = kind;
		this.scannedId = id;
		this.scannedMethod = method;
		this.error = error;
		this.source = source;
		this.offset = offset;
		this.length = length;
	}

	/** What the message is. */
	public Kind kind() {
		return kind;
	}

	/**
	 * The whole message as a JSON tree, unknown fields and {@code _meta} included: the live tree, read from the
	 * scanned bytes on the first call. The scan validated those bytes, so reading them cannot fail.
	 */
	public ObjectNode node() {
		if (node == null) {
			try {
				node = (ObjectNode) JsonRpcJson.mapper().readTree(source, offset, length);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("a scanned JSON-RPC message no longer reads", ex);
			}
		}
		return node;
	}

	/** The id of a request or response, {@code null} for a notification. */
	public JsonNode id() {
		return node != null ? node.get("id") : scannedId;
	}

	/** The method of a request or notification, {@code null} for a response. */
	public String method() {
		if (node == null) {
			return scannedMethod;
		}
		JsonNode method = node.get("method");
		return method == null ? null : method.asText();
	}

	public boolean isRequest() {
		return kind == Kind.REQUEST;
	}

	public boolean isResponse() {
		return kind == Kind.RESPONSE;
	}

	/** Whether this response carries an {@code error} rather than a {@code result}. */
	public boolean isError() {
		return error;
	}

	@Override
	public String toString() {
		return "JsonRpcMessage[kind=" + kind + ", id=" + id() + ", method=" + method() + "]";
	}

}
