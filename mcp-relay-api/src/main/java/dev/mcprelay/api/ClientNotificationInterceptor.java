package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 2, <b>client notification</b>: sees each notification a client POSTs (a message without an id), after the
 * {@link UserRequestInterceptor}s let it through and before it goes upstream.
 *
 * <p>Contract: inspect or reject. The view is read-only.
 *
 * <p>Wire form of a rejection: HTTP 400 with an id-less JSON-RPC error; the notification is not forwarded. In a
 * batch, the id-less error joins the batch's answers.
 *
 * <p>Not routed here: requests, responses, and notifications from the upstream (see
 * {@link RemoteMessageInterceptor}).
 */
public interface ClientNotificationInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptClientNotification(ClientNotification notification);

}
