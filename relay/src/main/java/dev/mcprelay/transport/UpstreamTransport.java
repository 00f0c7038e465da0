package dev.mcprelay.transport;

import java.util.function.Function;

import reactor.core.publisher.Mono;

/**
 * How the relay talks to one upstream MCP server (DESIGN section 9). The client always speaks Streamable HTTP to the
 * relay; a transport turns each of the client's requests into whatever the upstream speaks and hands back an
 * {@link UpstreamResponse} that reads as a Streamable HTTP answer (JSON, an SSE stream, 202, or an error status), so
 * that interceptors, metrics, limits and timeouts work the same on every transport.
 *
 * <p>The life of a session, by the client's HTTP method:
 * <ul>
 * <li>{@link #send} (POST): client messages. A transport that keeps an upstream session of its own opens it when the
 * messages hold an {@code initialize}, and answers with the session id the client is to use;</li>
 * <li>{@link #receive} (GET): the server-to-client stream of the session;</li>
 * <li>{@link #close} (DELETE): the end of the session.</li>
 * </ul>
 *
 * <p>Each method runs {@code handler} with the response and completes when the handler's {@link Mono} completes;
 * the upstream exchange is released then. Cancelling ends the exchange at once (the client went away). A failure
 * before a response exists is signalled as an error, which the relay classifies for the client
 * ({@link UpstreamTransportException} names the transport's own). None of them blocks.
 */
public interface UpstreamTransport {

	/** POST: delivers the client's message (or batch) upstream. */
	Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler);

	/** GET: the session's server-to-client stream. */
	Mono<Void> receive(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler);

	/** DELETE: ends the session. */
	Mono<Void> close(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler);

	/** The one of {@link #send}, {@link #receive} and {@link #close} the request's HTTP method stands for. */
	default Mono<Void> exchange(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return switch (request.method().name()) {
			case "GET" -> receive(request, handler);
			case "DELETE" -> close(request, handler);
			default -> send(request, handler);
		};
	}

}
