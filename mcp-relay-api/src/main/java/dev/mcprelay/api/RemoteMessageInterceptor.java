package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 3, <b>remote-message</b>: sees every message from the upstream before the client does: the message of a JSON
 * response body, and the message of every SSE event, on POST and GET streams alike (responses, server-to-client
 * requests such as {@code sampling/createMessage}, and notifications such as {@code notifications/progress}). It
 * runs before the response and error stages.
 *
 * <p>Contract: inspect or reject. The view is read-only.
 *
 * <p>Wire form of a rejection: a response or a server-to-client request is replaced by a JSON-RPC error with the
 * same id; a notification is replaced by a {@code notifications/message} at level {@code error} naming the rejected
 * method. On a stream the replacement is written in place of the event, keeping its SSE {@code id:},
 * {@code event:} and {@code retry:} fields; the events around it flow on.
 *
 * <p>Not routed here: SSE comments, events with no data, events of a custom type (they carry no message), and HTTP
 * answers that are not JSON-RPC (202, 4xx, 5xx), which are relayed untouched.
 */
public interface RemoteMessageInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptRemoteMessage(RemoteMessage message);

}
