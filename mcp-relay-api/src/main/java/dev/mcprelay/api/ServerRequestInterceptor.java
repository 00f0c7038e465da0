package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Server-request stage, the catch-all: sees each request the upstream sends the client whose method has no typed
 * stage of its own ({@code ping}, {@code tasks/*}, vendor methods, ...), on a POST stream or the GET stream, after
 * the {@link RemoteMessageInterceptor}s let it through.
 *
 * <p>Contract: inspect, change ({@link ServerRequest#replaceParams}, {@code _meta}), reject, or
 * {@linkplain Outcome#respond respond} to the server yourself.
 *
 * <p>Wire form: a rejection is answered to the server (a JSON-RPC error with its id, sent upstream) and the client
 * never sees the request; a respond is sent to the server as the result.
 *
 * <p>Not routed here: {@code sampling/createMessage}, {@code elicitation/create} and {@code roots/list}, which have
 * their own stages.
 */
public interface ServerRequestInterceptor extends Interceptor {

	/**
	 * Decides about one server request; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptServerRequest(ServerRequest request);

}
