package dev.mcprelay.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * What the views of messages the server starts have in common: a request to the client ({@link ServerRequest}) or a
 * notification ({@link ServerNotification}). Their params may be replaced as a whole or given a {@code _meta} entry;
 * typed views add finer setters. Fields no setter touches are relayed unchanged.
 */
public abstract class ServerMessage extends MessageView {

	private final boolean onStream;

	ServerMessage(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message.node());
		this.onStream = onStream;
	}

	@Override
	public String method() {
		return text(message(), "method");
	}

	/** A copy of the params; an empty object when there are none. */
	public ObjectNode params() {
		return objectFieldCopy("params");
	}

	/** Replaces the params as a whole (a {@code JsonNode}, a {@code Map} or an MCP schema record). */
	public void replaceParams(Object params) {
		message().set("params", toJson(params));
		markChanged();
	}

	/** Sets {@code params._meta.<key>} to {@code value} (any JSON-convertible value). */
	public void putMeta(String key, Object value) {
		objectField("params").withObjectProperty("_meta").set(key, toJson(value));
		markChanged();
	}

	/** Whether it came as an SSE event (on a POST or GET stream) rather than in a JSON body. */
	public boolean isOnStream() {
		return onStream;
	}

	/** The live params object, created when absent; setters of subclasses write through it. */
	ObjectNode liveParams() {
		return objectField("params");
	}

}
