package dev.mcprelay.upstream;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import org.springframework.security.oauth2.client.ClientCredentialsReactiveOAuth2AuthorizedClientProvider;
import org.springframework.security.oauth2.client.OAuth2AuthorizationContext;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.ReactiveOAuth2AuthorizedClientProvider;
import org.springframework.security.oauth2.client.TokenExchangeReactiveOAuth2AuthorizedClientProvider;
import org.springframework.security.oauth2.client.endpoint.AbstractOAuth2AuthorizationGrantRequest;
import org.springframework.security.oauth2.client.endpoint.WebClientReactiveClientCredentialsTokenResponseClient;
import org.springframework.security.oauth2.client.endpoint.WebClientReactiveTokenExchangeTokenResponseClient;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.ClientRegistrations;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.reactive.function.client.WebClient;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.Sha256;
import dev.mcprelay.OffEventLoop;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.config.UpstreamOAuth2Properties.UpstreamGrant;
import dev.mcprelay.config.UpstreamOAuth2Properties;
import reactor.core.publisher.Mono;

/**
 * One server's access tokens ({@code oauth2}): its client registration (given, or found from the issuer's metadata),
 * the Spring Security provider of its grant, and the cached token, one per server (client credentials) or per caller
 * token (exchange, at most {@link #MAX_EXCHANGED}), each shared by every request that waits for it until
 * {@link TokenRenewal} says to renew it.
 */
final class TokenSource {

	/** Exchanged tokens kept at most, least recently used first out. */
	static final int MAX_EXCHANGED = 10_000;

	/** How long an issuer's metadata ({@code issuer-uri}) is used before it is read again. */
	static final Duration METADATA_AGE = Duration.ofHours(1);

	private final String id;

	private final UpstreamOAuth2Properties settings;

	private final Mono<ClientRegistration> registration;

	private final ReactiveOAuth2AuthorizedClientProvider provider;

	private final AtomicReference<IssuedToken> shared = new AtomicReference<>();

	private final Cache<String, IssuedToken> exchanged = Caffeine.newBuilder()
		.maximumSize(MAX_EXCHANGED)
		.expireAfterAccess(Duration.ofHours(1))
		.build();

	TokenSource(String id, ServerProperties server, WebClient webClient) {
		this.id = id;
		this.settings = server.oauth2();
		boolean exchange = settings.grant() == UpstreamGrant.TOKEN_EXCHANGE;
		AuthorizationGrantType grantType = exchange ? AuthorizationGrantType.TOKEN_EXCHANGE
				: AuthorizationGrantType.CLIENT_CREDENTIALS;
		if (settings.tokenUri() != null) {
			this.registration = Mono.just(complete(ClientRegistration.withRegistrationId(id), grantType)
				.tokenUri(settings.tokenUri())
				.build());
		}
		else {
			// The issuer's metadata is read once, off the event loops (Spring reads it with a blocking client), when the
			// first request needs a token, and again after METADATA_AGE; a failure is not kept: the next request reads it again.
			this.registration = Mono.fromCallable(() -> complete(ClientRegistrations.fromIssuerLocation(settings.issuerUri())
					.registrationId(id), grantType).build())
				.subscribeOn(OffEventLoop.SCHEDULER)
				.cache(found -> METADATA_AGE, error -> Duration.ZERO, () -> Duration.ZERO);
		}
		if (exchange) {
			WebClientReactiveTokenExchangeTokenResponseClient client = new WebClientReactiveTokenExchangeTokenResponseClient();
			client.setWebClient(webClient);
			client.setBodyExtractor(new TokenResponseLifetime(settings.defaultTokenLifetime()));
			client.addParametersConverter(this::audienceParameters);
			authenticateWithKey(client);
			TokenExchangeReactiveOAuth2AuthorizedClientProvider exchanging = new TokenExchangeReactiveOAuth2AuthorizedClientProvider();
			exchanging.setAccessTokenResponseClient(client);
			exchanging.setSubjectTokenResolver(context -> Mono.justOrEmpty(
					context.<OAuth2AccessToken>getAttribute(SUBJECT_TOKEN)));
			this.provider = exchanging;
		}
		else {
			WebClientReactiveClientCredentialsTokenResponseClient client = new WebClientReactiveClientCredentialsTokenResponseClient();
			client.setWebClient(webClient);
			client.setBodyExtractor(new TokenResponseLifetime(settings.defaultTokenLifetime()));
			client.addParametersConverter(this::audienceParameters);
			authenticateWithKey(client);
			ClientCredentialsReactiveOAuth2AuthorizedClientProvider credentials = new ClientCredentialsReactiveOAuth2AuthorizedClientProvider();
			credentials.setAccessTokenResponseClient(client);
			this.provider = credentials;
		}
	}

	private static final String SUBJECT_TOKEN = TokenSource.class.getName() + ".subjectToken";

	/** The registration's client, authentication, grant and scopes, as configured. */
	private ClientRegistration.Builder complete(ClientRegistration.Builder builder, AuthorizationGrantType grantType) {
		builder.clientId(settings.clientId()).authorizationGrantType(grantType).scope(settings.scopes());
		if (settings.privateKey() != null) {
			return builder.clientSecret(null).clientAuthenticationMethod(ClientAuthenticationMethod.PRIVATE_KEY_JWT);
		}
		return builder.clientSecret(settings.clientSecret())
			.clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_BASIC);
	}

	/**
	 * For {@code private_key_jwt}: the client assertion, signed with the relay's key, added to every token request
	 * (Spring Security's Nimbus converter).
	 */
	private <T extends AbstractOAuth2AuthorizationGrantRequest> void authenticateWithKey(
			org.springframework.security.oauth2.client.endpoint.AbstractWebClientReactiveOAuth2AccessTokenResponseClient<T> client) {
		if (settings.privateKey() != null) {
			com.nimbusds.jose.jwk.JWK key = dev.mcprelay.config.ClientKeys.rsaKey(settings.privateKey(), settings.keyId());
			client.addParametersConverter(
					new org.springframework.security.oauth2.client.endpoint.NimbusJwtClientAuthenticationParametersConverter<>(
							registration -> key));
		}
	}

	/** {@code audience}, and {@code resource} (RFC 8707) when the audience is an absolute URI. */
	private MultiValueMap<String, String> audienceParameters(AbstractOAuth2AuthorizationGrantRequest request) {
		MultiValueMap<String, String> parameters = new LinkedMultiValueMap<>();
		String audience = settings.audience();
		if (audience != null && !audience.isBlank()) {
			parameters.add("audience", audience);
			try {
				if (URI.create(audience).isAbsolute()) {
					parameters.add("resource", audience);
				}
			}
			catch (IllegalArgumentException ex) {
				// not a URI: audience only
			}
		}
		return parameters;
	}

	/** Whether the token is one exchanged for a caller's ({@code token-exchange}), not the relay's own. */
	boolean exchangesCallerTokens() {
		return settings.grant() == UpstreamGrant.TOKEN_EXCHANGE;
	}

	Mono<OAuth2AccessToken> token(String callerToken) {
		if (settings.grant() == UpstreamGrant.TOKEN_EXCHANGE) {
			if (callerToken == null) {
				return Mono.error(new UpstreamAuthException(id, true,
						"MCP server '" + id + "' takes exchanged tokens and this request carries none to exchange."));
			}
			return exchanged.get(Sha256.hex(callerToken), key -> new IssuedToken(request(callerToken),
					failed -> exchanged.asMap().remove(key, failed))).token();
		}
		IssuedToken current = shared.get();
		if (current == null) {
			IssuedToken fresh = new IssuedToken(request(null), failed -> shared.compareAndSet(failed, null));
			current = shared.compareAndSet(null, fresh) ? fresh : shared.get();
		}
		return current.token();
	}

	private Mono<OAuth2AccessToken> request(String callerToken) {
		return registration.flatMap(client -> {
			OAuth2AuthorizationContext.Builder context = OAuth2AuthorizationContext.withClientRegistration(client)
				.principal(new org.springframework.security.authentication.AnonymousAuthenticationToken("mcp-relay",
						callerToken == null ? "mcp-relay" : "caller",
						org.springframework.security.core.authority.AuthorityUtils.createAuthorityList("ROLE_RELAY")));
			if (callerToken != null) {
				context.attribute(SUBJECT_TOKEN, new OAuth2AccessToken(OAuth2AccessToken.TokenType.BEARER, callerToken,
						Instant.now(), Instant.now().plusSeconds(60)));
			}
			return provider.authorize(context.build()).map(OAuth2AuthorizedClient::getAccessToken);
		})
			// Off the event loops: a private_key_jwt assertion is signed when the request is made (RSA blinding reads
			// the platform's random source), and token requests are rare enough that the hop costs nothing.
			.subscribeOn(OffEventLoop.SCHEDULER);
	}

	/**
	 * Forgets {@code refused}, the token an upstream refused (401), if it is still the one kept for {@code callerToken}
	 * (or the server's): a newer token, or one being asked for, stays.
	 */
	void drop(String callerToken, String refused) {
		if (settings.grant() == UpstreamGrant.TOKEN_EXCHANGE) {
			if (callerToken != null) {
				exchanged.asMap().computeIfPresent(Sha256.hex(callerToken), (key, kept) -> kept.issued(refused) ? null : kept);
			}
		}
		else {
			IssuedToken kept = shared.get();
			if (kept != null && kept.issued(refused)) {
				shared.compareAndSet(kept, null);
			}
		}
	}
}
