package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Server-request stage for <b>roots/list</b>: sees each request for the client's filesystem roots that the upstream sends, on a POST
 * stream or the GET stream, after the {@link RemoteMessageInterceptor}s let it through and before the client sees it.
 *
 * <p>Contract: inspect, change it through the view's setters, reject it, or {@linkplain Outcome#respond respond} to
 * the server yourself.
 *
 * <p>Wire form: a rejection is answered to the server (a JSON-RPC error with its id, sent upstream; the tool that
 * asked sees the error) and the client never sees the request (or, with
 * {@code rejected-server-requests: notify}, a warning notification); a respond is sent to the server as the
 * result, and the client never sees the request either.
 */
public interface RootsListRequestInterceptor extends Interceptor {

	/**
	 * Decides about one server request; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptRootsListRequest(RootsListRequest request);

}
