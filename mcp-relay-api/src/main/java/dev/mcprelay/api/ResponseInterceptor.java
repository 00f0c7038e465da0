package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Stage 4, <b>other response</b> (the catch-all): sees the upstream's successful answer to each request whose method
 * has no typed response stage ({@code ping}, {@code completion/complete}, {@code logging/setLevel},
 * {@code resources/subscribe}, ...), on the JSON and the SSE path alike, after the {@link RemoteMessageInterceptor}s
 * let it through. The request is at hand as {@code request()}.
 *
 * <p>What is routed here from a GET stream (opened anew or resumed with {@code Last-Event-ID}), where answers come
 * without the POST that sent their request:
 * <ul>
 * <li>the answer of a request the relay kept because its POST's stream ended before it (the client went away or the
 * server closed the stream; same replica, same session, within {@code sessions.idle-timeout}) comes with that
 * request, as on its POST, and meets its method's stage: here when that method has no typed one;</li>
 * <li>an answer whose request is not known, and whose result names no method by its shape (the member a typed
 * method's result requires: {@code content}, {@code tools}, {@code messages}, ...), comes here with a request of
 * unknown method: {@code method()} is {@code null}, {@code request()} has only the id. Such an answer is
 * dropped instead (logged and counted), never relayed past a typed stage, when its shape could be a result of a
 * typed method whose stage an interceptor of the server waits at, without telling which (the members of two
 * methods' results, or a {@code structuredContent} without {@code content});</li>
 * <li>an answer whose request is not known and whose shape names one method meets that method's typed stage, not
 * this one.</li>
 * </ul>
 * On a POST, an answer under an id no request of that POST has (or a second answer under one) is dropped: it reaches
 * no stage and no client.
 *
 * <p>Contract: inspect, reject, or replace the whole result ({@link McpResponse#replaceResult}).
 *
 * <p>Wire form of a rejection: the response is replaced by a JSON-RPC error with the same id (on a stream, in place
 * of the event).
 *
 * <p>Not routed here: the answers of methods with a typed response stage ({@code tools/call}, {@code tools/list},
 * {@code initialize}, {@code prompts/get}, {@code resources/read}, ...), which have their own; error answers and
 * failures (see {@link ErrorInterceptor}).
 */
public interface ResponseInterceptor extends Interceptor {

	/**
	 * Decides about one message; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptResponse(McpResponse response);

}
