package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 4, <b>other response</b> (the catch-all): sees the upstream's successful answer to each request whose method
 * has no typed response stage ({@code tools/call}, {@code initialize}, {@code prompts/get}, {@code resources/read},
 * {@code ping}, ...), on the JSON and the SSE path alike, after the {@link RemoteMessageInterceptor}s let it
 * through. The request is at hand as {@code request()}.
 *
 * <p>Contract: inspect, reject, or replace the whole result ({@link McpResponse#replaceResult}).
 *
 * <p>Wire form of a rejection: the response is replaced by a JSON-RPC error with the same id (on a stream, in place
 * of the event).
 *
 * <p>Not routed here: {@code tools/list}, {@code prompts/list} and {@code resources/list} answers, which have their
 * own stages; error answers and failures (see {@link ErrorInterceptor}); responses on a GET stream.
 */
public interface ResponseInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptResponse(McpResponse response);

}
