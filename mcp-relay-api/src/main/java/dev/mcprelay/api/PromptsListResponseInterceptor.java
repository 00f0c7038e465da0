package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 4, <b>prompts/list response</b>: sees the upstream's successful answer to a prompts/list request of this client request,
 * on the JSON and the SSE path alike, after the {@link RemoteMessageInterceptor}s let it through. The request is at
 * hand as {@code request()}.
 *
 * <p>Contract: inspect, reject, or change it: hide, reorder, replace or add prompts, or replace the whole result.
 *
 * <p>Wire form of a rejection: the response is replaced by a JSON-RPC error with the same id (on a stream, in place
 * of the event).
 *
 * <p>A list result that arrives without its request at hand (on a GET stream, or a stream resumed with
 * {@code Last-Event-ID}) is routed here too, recognised by its shape, with an inferred {@code request()}.
 *
 * <p>Not routed here: error answers and failures (see {@link ErrorInterceptor}), and other methods.
 */
public interface PromptsListResponseInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptPromptsListResponse(PromptsListResponse response);

}
