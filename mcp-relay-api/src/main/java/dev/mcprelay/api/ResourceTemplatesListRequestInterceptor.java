package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 2, <b>resources/templates/list request</b>: sees each resources/templates/list request a client POSTs, after the {@link UserRequestInterceptor}s let
 * it through and before it goes upstream.
 *
 * <p>Contract: inspect, reject, change {@code params._meta}, or {@linkplain Outcome#respond respond} with a result so that
 * nothing goes upstream. A change made through the view's setters is what the upstream receives, and what later
 * stages see as {@code request()}.
 *
 * <p>Wire form of a rejection: HTTP 200 with a JSON-RPC error carrying the request's id; nothing is forwarded.
 *
 * <p>Not routed here: other methods, notifications, and the response (see the response and error stages).
 */
public interface ResourceTemplatesListRequestInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptResourceTemplatesList(ListRequest request);

}
