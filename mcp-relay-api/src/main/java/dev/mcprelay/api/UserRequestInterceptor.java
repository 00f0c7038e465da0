package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 1, <b>user-request</b>: sees every message a client POSTs (requests, notifications, and responses to server
 * requests), and every GET (opening the server-to-client stream) and DELETE (ending a session), before any other
 * stage and before anything is sent upstream. Each message of a batch is decided on its own. A GET or DELETE carries
 * no message: {@link ClientMessage#httpMethod()} tells which it is, and its kind, method and id are {@code null}.
 *
 * <p>Contract: inspect, reject, or {@linkplain Outcome#respond respond} to a request. The view is read-only.
 *
 * <p>Wire form of a rejection: for a request, HTTP 200 with a JSON-RPC error carrying the request's id; for a
 * notification, HTTP 400 with an id-less JSON-RPC error; for a GET or DELETE, HTTP 403 with an id-less JSON-RPC error;
 * nothing of these is forwarded. For a client's answer to a server request, the server still gets an answer: the
 * rejection goes upstream as the error answer to its request, under the server's own id (as a rejection at the
 * client-response stage does), and the client's POST is answered as the upstream answers it. A respond to anything
 * but a request is refused as the interceptor's fault (-32603).
 *
 * <p>Not routed here: anything from the upstream.
 */
public interface UserRequestInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptUserRequest(ClientMessage message);

}
