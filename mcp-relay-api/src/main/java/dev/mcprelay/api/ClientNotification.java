package dev.mcprelay.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A notification from the client to the server ({@code notifications/initialized}, {@code notifications/cancelled},
 * {@code notifications/roots/list_changed}, ...), as the {@link ClientNotificationInterceptor}s see it. Read-only.
 */
public final class ClientNotification extends ClientView {

	public ClientNotification(CallContext context, ObjectNode message) {
		super(context, message);
	}

}
