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

	private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ServerOwnCredentials.class);

	private final Upstream upstream;

	/** The relay's own token by the bound of the wait; {@code null}: none. */
	private final Function<Duration, Mono<String>> token;

	/** @param token the relay's own token for the server ({@code UpstreamTokens#ownTokens}), or {@code null} */
	ServerOwnCredentials(Upstream upstream, Function<Duration, Mono<String>> token) {
		this.upstream = upstream;
		this.token = token;
	}

	/**
	 * Logs at WARN, when the relay begins to serve {@code upstream} (its version bridge is made), that the relay cannot
	 * learn its versions when they are not pinned and its only credential is the caller's: a {@code token-exchange}
	 * token or a header copied from the caller ({@code from-request-header}, {@code from-caller-claim}), with no
	 * {@code authorization}, no static header and no {@code client-credentials} token of the relay's own (review 46j,
	 * N2). Names no value.
	 */
	static void warnWhenOnlyTheCallersCredential(Upstream upstream) {
		dev.mcprelay.config.ServerProperties properties = upstream.properties();
		if (!properties.protocolVersions().isEmpty() || properties.authorization() != null) {
			return;
		}
		boolean exchanged = properties.oauth2() != null
				&& properties.oauth2().grant() == dev.mcprelay.config.UpstreamOAuth2Properties.UpstreamGrant.TOKEN_EXCHANGE;
		boolean ownToken = properties.oauth2() != null && !exchanged;
		boolean staticHeader = properties.headers().stream().anyMatch(header -> header.value() != null);
		boolean callersHeader = properties.headers().stream()
			.anyMatch(header -> header.fromRequestHeader() != null || header.fromCallerClaim() != null);
		if ((exchanged || callersHeader) && !ownToken && !staticHeader) {
			log.warn("MCP server '{}' is given only the caller's credentials ({}), and its protocol-versions are not "
					+ "pinned: the relay cannot learn its versions with its own requests, and bridges no client of the "
					+ "other generation to it: pin protocol-versions", upstream.id(),
					exchanged ? "oauth2 token-exchange" : "headers copied from the caller");
		}
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
