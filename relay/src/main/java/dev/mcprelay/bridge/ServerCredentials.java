package dev.mcprelay.bridge;

import org.springframework.http.HttpHeaders;

import reactor.core.publisher.Mono;

/**
 * What the relay may send a server on its own behalf, from the server's configuration alone: its static
 * {@code headers}, its {@code authorization}, the relay's own {@code oauth2} token (client credentials). Never a header
 * of a client's request, a copy of one ({@code from-request-header}), a caller's claim ({@code from-caller-claim}) or
 * a token exchanged for a caller's: the exchanges the relay makes to learn about a server ({@link OwnRequests}) bind
 * every caller, so no caller may steer where they go (review 46i, F1). A server whose configuration passes only the
 * caller's credential on refuses such an exchange, and the relay learns nothing from it.
 */
@FunctionalInterface
public interface ServerCredentials {

	/** None: the relay's own requests carry nothing but the protocol's headers. */
	ServerCredentials NONE = () -> Mono.fromSupplier(HttpHeaders::new);

	/**
	 * The headers, new for each call (the caller may change them); asked when an own request is about to be sent. May
	 * wait for a token; fails when none can be had (the request is then not sent, and nothing is learnt).
	 */
	Mono<HttpHeaders> headers();

}
