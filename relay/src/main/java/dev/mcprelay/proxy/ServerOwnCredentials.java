package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.function.Function;

import org.springframework.http.HttpHeaders;

import dev.mcprelay.bridge.ServerCredentials;
import reactor.core.publisher.Mono;

/**
 * What the relay's own requests to a server carry ({@link ServerCredentials}), from the server's configuration alone:
 * its static headers and {@code authorization} ({@link HeaderRules#ownRequestHeaders}) and, for a server with
 * {@code oauth2} of grant {@code client-credentials}, the relay's own token (waited for at most the server's
 * {@code timeouts.non-streaming}; a failure to get one fails the request, unsent). A server whose token is exchanged for
 * the caller's ({@code token-exchange}), or whose credential is a copy of the caller's ({@code from-request-header}),
 * gets none: it refuses the relay's own request, and nothing is learnt from it.
 */
final class ServerOwnCredentials implements ServerCredentials {

	private final Upstream upstream;

	/** The relay's own token by the bound of the wait; {@code null}: none. */
	private final Function<Duration, Mono<String>> token;

	/** @param token the relay's own token for the server ({@code UpstreamTokens#ownTokens}), or {@code null} */
	ServerOwnCredentials(Upstream upstream, Function<Duration, Mono<String>> token) {
		this.upstream = upstream;
		this.token = token;
	}

	@Override
	public Mono<HttpHeaders> headers() {
		if (token == null) {
			return Mono.fromSupplier(() -> HeaderRules.ownRequestHeaders(upstream));
		}
		return token.apply(upstream.nonStreamingTimeout()).map(value -> {
			HttpHeaders headers = HeaderRules.ownRequestHeaders(upstream);
			headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + value);
			return headers;
		}).switchIfEmpty(Mono.fromSupplier(() -> HeaderRules.ownRequestHeaders(upstream)));
	}

}
