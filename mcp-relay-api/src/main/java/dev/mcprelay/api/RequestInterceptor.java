package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 2, <b>other request</b> (the catch-all): sees each request a client POSTs whose method has no typed stage of
 * its own ({@code ping}, {@code completion/complete}, {@code logging/setLevel}, {@code resources/subscribe},
 * {@code tasks/*}, vendor methods, ...), after the {@link UserRequestInterceptor}s let it through.
 *
 * <p>Contract: inspect, reject, change {@code params._meta}, or {@linkplain Outcome#respond respond} with a result so
 * that nothing goes upstream.
 *
 * <p>Wire form of a rejection: HTTP 200 with a JSON-RPC error carrying the request's id; nothing is forwarded.
 *
 * <p>Not routed here: {@code initialize}, {@code tools/call}, {@code tools/list}, {@code prompts/list},
 * {@code prompts/get}, {@code resources/list}, {@code resources/templates/list} and {@code resources/read}, which
 * have their own stages; notifications; responses. To see every request whatever its method, use a
 * {@link UserRequestInterceptor}.
 */
public interface RequestInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptRequest(McpRequest request);

}
