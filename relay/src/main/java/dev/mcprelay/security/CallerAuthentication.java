package dev.mcprelay.security;

import java.util.List;
import java.util.Objects;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.JwtReactiveAuthenticationManager;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.ApiKeyProperties;
import dev.mcprelay.config.JwtProperties;
import dev.mcprelay.config.SecurityMode;
import dev.mcprelay.config.SecurityProperties;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import reactor.core.publisher.Mono;

/**
 * How callers authenticate, a part of each configuration snapshot ({@link CallerChecks}): in {@code api-key} mode the
 * keys of {@code security.api-keys} ({@link ApiKeys}), in {@code jwt} mode a decoder of {@code security.jwt}'s
 * settings (issuer, JWK Set or issuer metadata, audience, client claim) with its cache of accepted tokens
 * ({@link ValidatedTokens}). The front door authenticates a request with the part of the snapshot it took.
 *
 * <p>What a snapshot reuses of the previous one: the same manager when the settings it is made of did not change (the
 * keys' list, or the decoder's settings), so an accepted token stays kept; the same signing keys ({@link JwkSetKeys},
 * its cached JWK Set and refresh timer) when their source ({@code issuer-uri}, {@code jwk-set-uri}, refresh interval
 * and cool-down) did not change, even under a new decoder. Any change makes a new manager, whose cache starts empty:
 * every token is checked again on its next request by the new settings.
 *
 * <p>Once a new snapshot is current ({@link #replaced}): the previous keys are destroyed when they are no longer used
 * (their timer stops; a request still on the previous snapshot may still fetch with them), and the requests admitted
 * on earlier snapshots are told to review their caller's access ({@link AccessReviews}, {@link WithdrawnAccess}): a
 * stream whose key was revoked, whose token the new settings refuse, or whose caller no longer opens its server ends.
 * At shutdown the current keys are destroyed.
 */
@Component
class CallerAuthentication implements SnapshotPart<CallerChecks>, SmartInitializingSingleton, DisposableBean {

	private final ObjectProvider<LiveConfiguration> live;

	/**
	 * The holder of the snapshots, once every bean is made (it is made of the parts, so not before): read when a
	 * snapshot was applied, and at shutdown, when the container no longer hands it out (it is destroyed before the
	 * parts it was made of).
	 */
	private volatile LiveConfiguration configuration;

	CallerAuthentication(ObjectProvider<LiveConfiguration> live) {
		this.live = live;
	}

	@Override
	public void afterSingletonsInstantiated() {
		configuration = live.getObject();
	}

	@Override
	public String partName() {
		return "callers";
	}

	@Override
	public CallerChecks compile(SnapshotCompilation compilation) {
		SecurityProperties security = compilation.properties().security();
		CallerChecks previous = compilation.previous(this);
		AccessReviews reviews = previous == null ? new AccessReviews() : previous.reviews();
		List<ApiKeyProperties> apiKeys = security.apiKeys();
		JwtProperties jwt = security.jwt();
		if (security.mode() == SecurityMode.API_KEY) {
			ReactiveAuthenticationManager keys = previous != null && previous.apiKeys().equals(apiKeys)
					? previous.authentication() : new ApiKeys(apiKeys);
			return new CallerChecks(keys, apiKeys, jwt, null, reviews);
		}
		if (security.mode() == SecurityMode.JWT) {
			JwkSetKeys keys = previous != null && previous.keys() != null && sameKeySource(previous.jwt(), jwt)
					? previous.keys() : JwtDecoding.keys(jwt);
			ReactiveAuthenticationManager tokens = previous != null && previous.keys() == keys
					&& sameDecoding(previous.jwt(), jwt) ? previous.authentication() : tokens(jwt, keys);
			return new CallerChecks(tokens, apiKeys, jwt, keys, reviews);
		}
		return new CallerChecks(null, apiKeys, jwt, null, reviews);
	}

	@Override
	public void replaced(CallerChecks previous, CallerChecks next) {
		if (previous.keys() != null && previous.keys() != next.keys()) {
			previous.keys().destroy();
		}
		if (configuration != null) {
			next.reviews().applied(configuration.current());
		}
	}

	/** The JWT manager of {@code jwt}'s settings over {@code keys}, its accepted tokens kept. */
	private static ReactiveAuthenticationManager tokens(JwtProperties jwt, JwkSetKeys keys) {
		JwtAuthenticationConverter callers = new JwtAuthenticationConverter();
		callers.setPrincipalClaimName(jwt.clientClaim());
		JwtReactiveAuthenticationManager tokens = new JwtReactiveAuthenticationManager(JwtDecoding.decoder(jwt, keys));
		tokens.setJwtAuthenticationConverter(
				token -> Mono.just(new TokenAuthentication((JwtAuthenticationToken) callers.convert(token))));
		return new ValidatedTokens(tokens);
	}

	/** Whether the signing keys of {@code before} and {@code after} come from the same place, fetched alike. */
	private static boolean sameKeySource(JwtProperties before, JwtProperties after) {
		return Objects.equals(before.issuerUri(), after.issuerUri()) && Objects.equals(before.jwkSetUri(), after.jwkSetUri())
				&& before.jwkSetRefreshInterval().equals(after.jwkSetRefreshInterval())
				&& before.jwkSetRefetchCooldown().equals(after.jwkSetRefetchCooldown());
	}

	/** Whether a token is decoded, and its caller named, alike under {@code before} and {@code after}. */
	private static boolean sameDecoding(JwtProperties before, JwtProperties after) {
		return Objects.equals(before.expectedIssuer(), after.expectedIssuer())
				&& Objects.equals(before.audience(), after.audience()) && before.clientClaim().equals(after.clientClaim());
	}

	/** At shutdown: the current signing keys' refresh timer ends with the application. */
	@Override
	public void destroy() {
		if (configuration != null) {
			CallerChecks checks = of(configuration.current());
			if (checks.keys() != null) {
				checks.keys().destroy();
			}
		}
	}

}
