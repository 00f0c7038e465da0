package dev.mcprelay.upstream;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.core.OAuth2AuthorizationException;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.UpstreamOAuth2Properties;
import dev.mcprelay.metrics.KeptCounters;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * The access tokens the relay sends servers with {@code oauth2} ({@link UpstreamOAuth2Properties}), from their
 * authorization servers through Spring Security's reactive OAuth2 client providers (client credentials, and token
 * exchange, RFC 8693).
 *
 * <p>A client-credentials token is one per server; an exchanged token is one per server and caller token (at most
 * {@link TokenSource#MAX_EXCHANGED} kept). Each is cached until {@link TokenRenewal} says to renew it, and asked for once however
 * many requests wait for it (single flight: they share one token request). A request bounded by the server's
 * {@code non-streaming} timeout that cannot get a token fails with {@link UpstreamAuthException}: refused, or the
 * authorization server down or slow; counted as {@value #FAILURES} by server and reason. A token the upstream refused
 * (401) is {@link #drop dropped}, so the next request asks for a new one.
 */
@Component
public class UpstreamTokens {

	static final String FAILURES = "mcp.relay.upstream.auth.failures";

	private static final String FAILURES_DESCRIPTION = "Requests that could not get an upstream access token, by server "
			+ "and reason";

	private static final String REFUSED = "refused";

	private static final String UNAVAILABLE = "unavailable";

	private static final Logger log = LoggerFactory.getLogger(UpstreamTokens.class);

	private final Map<String, TokenSource> servers = new LinkedHashMap<>();

	private final KeptCounters failures;

	public UpstreamTokens(RelayProperties properties, MeterRegistry registry) {
		this.failures = new KeptCounters(registry);
		WebClient webClient = WebClient.create();
		properties.servers().forEach((id, server) -> {
			if (server != null && server.oauth2() != null) {
				servers.put(id, new TokenSource(id, server, webClient));
				for (String reason : List.of(REFUSED, UNAVAILABLE)) {
					failures.declare(FAILURES, FAILURES_DESCRIPTION, "server", id, "reason", reason);
				}
			}
		});
	}

	/** Whether {@code server} gets its token from an authorization server. */
	public boolean appliesTo(String server) {
		return servers.containsKey(server);
	}

	/**
	 * The access token to send {@code server} for this request; empty when it has no {@code oauth2}.
	 *
	 * @param callerToken the caller's own validated token, for a {@code token-exchange} server; else ignored
	 * @param bound how long to wait for a token at most (the server's {@code non-streaming} timeout)
	 */
	public Mono<String> tokenFor(String server, String callerToken, Duration bound) {
		TokenSource source = servers.get(server);
		if (source == null) {
			return Mono.empty();
		}
		return source.token(callerToken)
			.map(OAuth2AccessToken::getTokenValue)
			.timeout(bound, Mono.error(() -> new UpstreamAuthException(server, false,
					"The authorization server for MCP server '" + server + "' did not answer within " + bound + ".")))
			.onErrorMap(error -> !(error instanceof UpstreamAuthException), error -> translate(server, error))
			.doOnError(UpstreamAuthException.class, failure -> count(server, failure));
	}

	/**
	 * Forgets {@code refused}, the token sent with a request the upstream refused (401), unless a newer one is kept or
	 * being asked for: the next request asks for a new one, once however many requests the upstream refused with it.
	 */
	public void drop(String server, String callerToken, String refused) {
		TokenSource source = servers.get(server);
		if (source != null) {
			source.drop(callerToken, refused);
		}
	}

	private UpstreamAuthException translate(String server, Throwable error) {
		if (error instanceof OAuth2AuthorizationException refused) {
			log.warn("The authorization server refused a token for MCP server '{}': {}", server,
					refused.getError().getErrorCode());
			return new UpstreamAuthException(server, true, "The authorization server refused a token for MCP server '"
					+ server + "' (" + refused.getError().getErrorCode() + ").");
		}
		log.warn("No token for MCP server '{}': the authorization server could not be reached ({})", server,
				error.getClass().getSimpleName());
		return new UpstreamAuthException(server, false,
				"The authorization server for MCP server '" + server + "' could not be reached.");
	}

	private void count(String server, UpstreamAuthException failure) {
		failures.increment(FAILURES, FAILURES_DESCRIPTION, "server", server, "reason",
				failure.refused() ? REFUSED : UNAVAILABLE);
	}

}
