package dev.mcprelay.api;

import java.util.Map;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What every view of a message the client sent shares: its method and params are its own, read from the message
 * itself (responses and remote messages, by contrast, take their method from the request they answer).
 */
public abstract class ClientView extends MessageView {

	ClientView(CallContext context, ObjectNode message) {
		super(context, message);
	}

	/** The message's own method; {@code null} for a response the client sent to a server request. */
	@Override
	public String method() {
		return text(message(), "method");
	}

	/** A copy of the params (an empty object when there are none). */
	public ObjectNode params() {
		return objectFieldCopy("params");
	}

	/**
	 * The params read in place, without a copy ({@link JsonView}: read-only, each value decoded when read); empty
	 * when there are none or they are not an object.
	 */
	public Map<String, Object> paramsView() {
		return JsonView.fieldsOf(message().get("params"));
	}

}
