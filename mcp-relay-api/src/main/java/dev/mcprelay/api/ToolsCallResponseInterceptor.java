package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 4, <b>tools/call response</b>: sees the upstream's successful answer to a tools/call request of this client request,
 * on the JSON and the SSE path alike, after the {@link RemoteMessageInterceptor}s let it through. The request is at
 * hand as {@code request()}.
 *
 * <p>Contract: inspect, reject, or change it through the view's setters (the tool's content, structured content or {@code isError}), or replace the whole result.
 *
 * <p>Wire form of a rejection: the response is replaced by a JSON-RPC error with the same id (on a stream, in place
 * of the event).
 *
 * <p>Not routed here: error answers and failures (see {@link ErrorInterceptor}), and other methods.
 */
public interface ToolsCallResponseInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptToolsCallResponse(ToolsCallResponse response);

}
