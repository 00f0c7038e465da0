package dev.mcprelay.security;

import java.util.Locale;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2ErrorCodes;
import org.springframework.security.web.server.ServerAuthenticationEntryPoint;
import org.springframework.security.web.server.WebFilterExchange;
import org.springframework.security.web.server.authentication.ServerAuthenticationFailureHandler;
import org.springframework.security.web.server.authorization.ServerAccessDeniedHandler;
import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.config.SecurityMode;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.http.WebFluxResponse;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.metrics.KeptCounters;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.proxy.RelayAnswers;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * Writes every refusal of the front door, as a JSON-RPC error (id null: the body is never read) with a stable
 * {@code error.data.reason}, counts it ({@code mcp.relay.auth.failures} by reason and server) and records it for the
 * access log. Nothing is forwarded and no credential is quoted.
 * <ul>
 * <li>401: no credentials ({@code missing_credentials}), malformed ones ({@code malformed_credentials}), more than
 * one ({@code ambiguous_credentials}), an unknown
 * key ({@code invalid_api_key}), a token that is not valid ({@code token_expired}, {@code token_not_yet_valid},
 * {@code invalid_audience}, {@code invalid_issuer}, {@code invalid_signature}, {@code malformed_token},
 * {@code missing_client_claim},
 * {@code invalid_token}). The body names no server.</li>
 * <li>403: a key that does not open the server ({@code server_not_allowed}), a token without the scopes it needs
 * ({@code insufficient_scope}).</li>
 * <li>503: the token's keys cannot be fetched ({@code authentication_unavailable}).</li>
 * </ul>
 * In {@code jwt} mode, 401 and 403 carry {@code WWW-Authenticate: Bearer resource_metadata="…"} pointing at the RFC
 * 9728 metadata of the path asked for (with RFC 6750's {@code error} and {@code scope} where they apply), which is how
 * an MCP client finds the authorization server.
 *
 * <p>The same answers for the MCP paths on Reactor Netty's route ({@link FrontDoor}) and for every other path in
 * Spring Security's filter chain (as its entry point, access-denied and authentication-failure handlers).
 */
final class FrontDoorAnswers
		implements ServerAuthenticationEntryPoint, ServerAccessDeniedHandler, ServerAuthenticationFailureHandler {

	private static final Logger log = LoggerFactory.getLogger(FrontDoorAnswers.class);

	private final SecurityMode mode;

	private final KeptCounters counters;

	private final McpRouting routing;

	FrontDoorAnswers(SecurityMode mode, McpRouting routing, MeterRegistry registry) {
		this.mode = mode;
		this.routing = routing;
		this.counters = new KeptCounters(registry);
	}

	/**
	 * What a refusal answers: the request's routing decision, its record, its response, and the URL of its RFC 9728
	 * metadata (read only for a challenge that names it).
	 */
	record Refused(McpRoute route, ExchangeRecord record, RelayResponse response, Supplier<String> metadataUrl) {
	}

	/** Spring Security's chain (paths off Reactor Netty's route): no credential, or one not accepted. */
	@Override
	public Mono<Void> commence(ServerWebExchange exchange, AuthenticationException failure) {
		return unauthenticated(refused(exchange), failure);
	}

	/** Spring Security's chain: an authenticated caller that {@link ServerAccess} refused. */
	@Override
	public Mono<Void> handle(ServerWebExchange exchange, AccessDeniedException denied) {
		return forbidden(refused(exchange), exchange.getAttribute(AccessRefusal.ATTRIBUTE));
	}

	@Override
	public Mono<Void> onAuthenticationFailure(WebFilterExchange webFilterExchange, AuthenticationException failure) {
		return commence(webFilterExchange.getExchange(), failure);
	}

	/**
	 * Answers a request whose credential is missing ({@code failure} says so with any exception that is none of those
	 * below), malformed, not accepted ({@link FrontDoorException}, Spring Security's {@code invalid_token}), or could
	 * not be checked ({@link AuthenticationServiceException}: 503).
	 */
	Mono<Void> unauthenticated(Refused request, AuthenticationException failure) {
		if (failure instanceof AuthenticationServiceException) {
			log.warn("Tokens cannot be checked: {}", failure.getMessage());
			return refuse(request, RelayFailures.authenticationUnavailable("The relay cannot check tokens right now: "
					+ "the keys of its authorization server are unreachable. Try again later."), null);
		}
		String reason;
		String message;
		if (failure instanceof FrontDoorException refusal) {
			reason = refusal.reason();
			message = refusal.getMessage();
		}
		else if (failure instanceof OAuth2AuthenticationException oauth
				&& OAuth2ErrorCodes.INVALID_TOKEN.equals(oauth.getError().getErrorCode())) {
			reason = TokenRejections.reasonFor(describe(oauth));
			log.debug("Token refused ({}): {}", reason, describe(oauth));
			message = TokenRejections.messageFor(reason);
		}
		else if (failure instanceof OAuth2AuthenticationException) {
			reason = "malformed_credentials";
			message = "The credentials are malformed: send Authorization: Bearer <token>";
		}
		else {
			reason = "missing_credentials";
			message = mode == SecurityMode.JWT
					? "This relay needs an OAuth access token: send Authorization: Bearer <token>"
					: "This relay needs an API key: send Authorization: Bearer <key> or X-Api-Key: <key>";
		}
		String challenge = "missing_credentials".equals(reason) ? null
				: "error=\"" + ("malformed_credentials".equals(reason) || "ambiguous_credentials".equals(reason)
						? OAuth2ErrorCodes.INVALID_REQUEST
						: OAuth2ErrorCodes.INVALID_TOKEN) + "\", error_description=\"" + message.replace("\"", "'") + "\"";
		return refuse(request, RelayFailures.unauthenticated(reason, message), challenge);
	}

	/** Answers an authenticated caller refused for {@code refusal}'s reason; {@code null}: refused for no stated reason. */
	Mono<Void> forbidden(Refused request, AccessRefusal refusal) {
		if (refusal != null) {
			String challenge = refusal.scope() == null ? null
					: "error=\"insufficient_scope\", scope=\"" + refusal.scope() + "\"";
			return refuse(request, RelayFailures.forbidden(refusal.reason(), refusal.server(), refusal.getMessage()),
					challenge);
		}
		return refuse(request, RelayFailures.forbidden("forbidden", null, "This caller may not use this path."), null);
	}

	private Refused refused(ServerWebExchange exchange) {
		return new Refused(routing.routeOf(exchange), ExchangeRecord.begin(exchange.getRequest().getMethod()),
				WebFluxResponse.of(exchange.getResponse()),
				() -> ProtectedResourceMetadata.metadataUrl(exchange.getRequest()));
	}

	private Mono<Void> refuse(Refused request, RelayFailure failure, String challengeDetail) {
		McpRoute route = request.route();
		String serverTag = route.configuredId() != null ? route.configuredId()
				: route.isEndpoint() ? ExchangeRecord.UNKNOWN_SERVER : "none";
		counters.increment(RelayMeters.AUTH_FAILURES, "Requests the front door refused, by reason", RelayMeters.REASON,
				failure.reason(), RelayMeters.SERVER, serverTag);
		request.record().failed(failure.outcome(), failure.reason());
		HttpHeaders headers = new HttpHeaders();
		if (failure.status().value() == 401 || failure.status().value() == 403) {
			headers.set(HttpHeaders.WWW_AUTHENTICATE, challenge(request, challengeDetail));
		}
		return RelayAnswers.respondWith(request.response(), failure, headers);
	}

	/** The failure's message with its causes': Spring Security keeps the decoder's reason in the cause. */
	private static String describe(Throwable failure) {
		StringBuilder text = new StringBuilder();
		for (Throwable cause = failure; cause != null && text.length() < 2000; cause = cause.getCause()) {
			text.append(cause.getMessage()).append(" / ");
			if (cause instanceof OAuth2AuthenticationException oauth && oauth.getError().getDescription() != null) {
				text.append(oauth.getError().getDescription()).append(" / ");
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return text.toString();
	}

	/** The Bearer challenge: with the path's RFC 9728 metadata in {@code jwt} mode. */
	private String challenge(Refused request, String detail) {
		StringBuilder challenge = new StringBuilder("Bearer");
		if (mode == SecurityMode.JWT && request.route().isEndpoint()) {
			challenge.append(" resource_metadata=\"")
				.append(request.metadataUrl().get())
				.append('"');
		}
		else {
			challenge.append(" realm=\"mcp-relay\"");
		}
		if (detail != null) {
			challenge.append(", ").append(detail);
		}
		return challenge.toString();
	}

	/** The reasons and messages of tokens Spring Security's validation refused, told apart by its descriptions. */
	static final class TokenRejections {

		private TokenRejections() {
		}

		static String reasonFor(String description) {
			String text = description == null ? "" : description.toLowerCase(Locale.ROOT);
			if (text.contains(JwtDecoding.NAMES_NO_CALLER)) {
				return "missing_client_claim";
			}
			if (text.contains("expired")) {
				return "token_expired";
			}
			if (text.contains("used before")) {
				return "token_not_yet_valid";
			}
			if (text.contains("aud claim")) {
				return "invalid_audience";
			}
			if (text.contains("iss claim")) {
				return "invalid_issuer";
			}
			if (text.contains("signature") || text.contains("no matching key") || text.contains("algorithm")) {
				return "invalid_signature";
			}
			// Nimbus's "Invalid unsecured/JWS/JWE header: Invalid JSON object": three parts that decode to no JWT (abc.def.ghi)
			if (text.contains("malformed") || text.contains("serializ") || text.contains("delimiter") || text.contains("parse")
					|| text.contains("invalid jwt") || text.contains("jws/jwe header")) {
				return "malformed_token";
			}
			return "invalid_token";
		}

		static String messageFor(String reason) {
			return switch (reason) {
				case "token_expired" -> "The access token has expired: get a new one";
				case "missing_client_claim" -> "The access token does not name its caller in the claim this relay reads "
						+ "(mcp-relay.security.jwt.client-claim)";
				case "token_not_yet_valid" -> "The access token is not valid yet (nbf is in the future)";
				case "invalid_audience" -> "The access token was not issued for this relay (aud)";
				case "invalid_issuer" -> "The access token was issued by an authorization server this relay does not trust (iss)";
				case "invalid_signature" -> "The access token's signature cannot be verified with the authorization server's keys";
				case "malformed_token" -> "The access token is not a well-formed JWT";
				default -> "The access token is not valid";
			};
		}

	}

}
