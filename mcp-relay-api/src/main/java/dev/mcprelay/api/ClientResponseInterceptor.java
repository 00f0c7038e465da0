package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 2, <b>client-response</b>: sees each answer a client POSTs to a request of the server (what the user approved
 * for a sampling request, what they entered for an elicitation, the roots), with the server's request at hand
 * ({@link ClientResponse#serverRequestMethod()}, {@link ClientResponse#serverRequestParams()}), after the
 * {@link UserRequestInterceptor}s let it through and before it goes upstream.
 *
 * <p>Contract: inspect, change the result ({@link ClientResponse#replaceResult}), or reject it.
 *
 * <p>Wire form of a rejection: the server gets the rejection as the error answer to its request, in place of what
 * the client said; the client's POST is answered as the upstream answers it (202).
 *
 * <p>Every server request the client sees carries an id the relay gives it, whatever interceptors exist: the method
 * rides along inside the id, signed and bound to the server, the session and the caller, for
 * {@code sessions.idle-timeout}; the server always gets its own ids back (in answers and in the client's
 * {@code notifications/cancelled}). The params stay on the replica that relayed the request.
 */
public interface ClientResponseInterceptor extends Interceptor {

	/**
	 * Decides about one answer; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptClientResponse(ClientResponse response);

}
