package dev.mcprelay.intercept;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A notification from the client to the server ({@code notifications/initialized}, {@code notifications/cancelled},
 * {@code notifications/roots/list_changed}, ...), as the {@link ClientNotificationInterceptor}s see it. Read-only.
 */
public final class ClientNotification extends MessageView {

	ClientNotification(CallContext context, ObjectNode message) {
		super(context, message);
	}

	@Override
	public String method() {
		return text(message(), "method");
	}

	/** A copy of the params (an empty object when there are none). */
	public ObjectNode params() {
		return objectFieldCopy("params");
	}

}
