package dev.mcprelay.upstream;

import java.time.Duration;
import java.util.Collections;
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
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
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
 *
 * <p>The token sources are a part of each configuration snapshot ({@link SnapshotPart}): a request asks the sources
 * of the snapshot it runs on, so a server a reload added or changed (another URL, another client, no {@code oauth2}
 * any more) gets tokens from its own settings from its next request on, and an unchanged server keeps its cached
 * tokens across the reload.
 */
@Component
public class UpstreamTokens implements SnapshotPart<Map<String, TokenSource>> {

	static final String FAILURES = "mcp.relay.upstream.auth.failures";

	private static final String FAILURES_DESCRIPTION = "Requests that could not get an upstream access token, by server "
			+ "and reason";

	private static final String REFUSED = "refused";

	private static final String UNAVAILABLE = "unavailable";

	private static final Logger log = LoggerFactory.getLogger(UpstreamTokens.class);

	private final KeptCounters failures;

	private final WebClient webClient = WebClient.create();

	public UpstreamTokens(MeterRegistry registry) {
		this.failures = new KeptCounters(registry);
	}

	@Override
	public String partName() {
		return "upstream token sources";
	}

	/**
	 * A token source for each server of the snapshot with {@code oauth2}: the previous snapshot's, with its cached
	 * tokens, for a server whose settings did not change; a new one, with nothing cached, for a server added or
	 * changed in any way (another URL may be another audience: a token is never carried to it). A removed server's
	 * source is simply left behind: requests still running on the previous snapshot finish with it.
	 */
	@Override
	public Map<String, TokenSource> compile(SnapshotCompilation compilation) {
		Map<String, TokenSource> previous = compilation.previous(this);
		RelayProperties before = compilation.previousProperties();
		Map<String, TokenSource> sources = new LinkedHashMap<>();
		compilation.properties().servers().forEach((id, server) -> {
			if (server == null || server.oauth2() == null) {
				return;
			}
			boolean unchanged = previous != null && previous.containsKey(id) && server.equals(before.servers().get(id));
			sources.put(id, unchanged ? previous.get(id) : new TokenSource(id, server, webClient));
			for (String reason : List.of(REFUSED, UNAVAILABLE)) {
				failures.declare(FAILURES, FAILURES_DESCRIPTION, "server", id, "reason", reason);
			}
		});
		return Collections.unmodifiableMap(sources);
	}

	/** Whether {@code server} gets its token from an authorization server in {@code snapshot}. */
	public boolean appliesTo(ConfigurationSnapshot snapshot, String server) {
		return of(snapshot).containsKey(server);
	}

	/**
	 * The access token to send {@code server} for a request running on {@code snapshot}; empty when the server has no
	 * {@code oauth2} there.
	 *
	 * @param callerToken the caller's own validated token, for a {@code token-exchange} server; else ignored
	 * @param bound how long to wait for a token at most (the server's {@code non-streaming} timeout)
	 */
	public Mono<String> tokenFor(ConfigurationSnapshot snapshot, String server, String callerToken, Duration bound) {
		return tokenOf(of(snapshot).get(server), server, callerToken, bound);
	}

	/**
	 * The relay's own token for {@code server} as the snapshot being compiled gets it, for the requests the relay makes
	 * on its own behalf (to learn about the server, {@code dev.mcprelay.bridge.ServerCredentials}): a function of the
	 * bound of the wait, asked per request, which fails as {@link #tokenFor} does; {@code null} when the server gets no
	 * token of the relay's own there: no {@code oauth2}, or {@code token-exchange} (a token exchanged for a caller's,
	 * which no request of the relay's own carries).
	 */
	public java.util.function.Function<Duration, Mono<String>> ownTokens(SnapshotCompilation compilation,
			String server) {
		TokenSource source = compilation.part(this).get(server);
		if (source == null || source.exchangesCallerTokens()) {
			return null;
		}
		return bound -> tokenOf(source, server, null, bound);
	}

	private Mono<String> tokenOf(TokenSource source, String server, String callerToken, Duration bound) {
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
	 * Forgets {@code refused}, the token sent with a request (running on {@code snapshot}) the upstream refused (401),
	 * unless a newer one is kept or being asked for: the next request asks for a new one, once however many requests
	 * the upstream refused with it.
	 */
	public void drop(ConfigurationSnapshot snapshot, String server, String callerToken, String refused) {
		TokenSource source = of(snapshot).get(server);
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
