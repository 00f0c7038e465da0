package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 4, <b>error</b>: sees each request of this client request that got no result: the upstream answered with a
 * JSON-RPC error (JSON or SSE), or the relay got no answer (timeout, connection refused, a broken or idle stream, an
 * answer that is not JSON-RPC). Errors the relay raises before contacting the upstream (unknown server, bad request,
 * a rejection by an interceptor) are not routed here. The failed request is at hand as {@code request()}; use its
 * method or its typed view ({@code request() instanceof ToolsCallRequest call}) to act per method.
 *
 * <p>Contract: inspect, {@linkplain Outcome#replaceError replace the error with a result}, or reject to send another
 * error instead.
 *
 * <p>Wire form: the client gets the result or the error with the request's id, in place of the upstream's error. When
 * the relay got no answer and every failed request was given a result, the HTTP status is 200 instead of 502/504.
 *
 * <p>An error answer on a GET stream (opened anew or resumed with {@code Last-Event-ID}) comes here too: with its
 * request when the relay kept it (its POST's stream ended before the answer), else with a request of unknown method
 * ({@code method()} is {@code null}, {@code request()} has only the id). On a POST, an error under an id no request of
 * that POST has is dropped, but for an error under id {@code null} (the server could not read the request) while
 * exactly one request of the POST waits: that request's error, under its id.
 *
 * <p>Not routed here: successful answers, and HTTP answers that are not JSON-RPC (4xx, 5xx), which are relayed
 * untouched.
 */
public interface ErrorInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptError(UpstreamError error);

}
