package dev.mcprelay.security;

import java.util.List;

import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

import dev.mcprelay.config.ApiKeyProperties;
import dev.mcprelay.config.JwtProperties;
import reactor.core.publisher.Mono;

/**
 * How the front door checks callers under one configuration snapshot, the part {@link CallerAuthentication} compiles:
 * the mode's authentication manager ({@link ApiKeys} over {@code security.api-keys}, or the JWT manager over a decoder
 * of {@code security.jwt}, its accepted tokens kept by {@link ValidatedTokens}), the settings it was made of, and the
 * signing keys it reads. A manager is the same object in two snapshots when the settings it was made of did not
 * change: a credential it accepted stays accepted without being checked again.
 *
 * @param authentication the mode's manager; {@code null} in mode {@code none}
 * @param apiKeys the keys {@code authentication} accepts ({@code api-key} mode)
 * @param jwt the JWT settings ({@code jwt} mode): the decoder's, the required and management scopes
 * @param keys the signing keys the decoder reads ({@code jwt} mode), else {@code null}
 * @param reviews the snapshots made current since start-up, shared by every snapshot's checks
 */
record CallerChecks(ReactiveAuthenticationManager authentication, List<ApiKeyProperties> apiKeys, JwtProperties jwt,
		JwkSetKeys keys, AccessReviews reviews) {

	/**
	 * {@code accepted} (by this or an earlier snapshot's manager) checked again by this snapshot's manager: the same
	 * object when that manager is the one of {@code acceptedBy}; an API key is looked up again by its hash, a token
	 * decoded again (a kept token is not). Fails as the manager refuses.
	 */
	Mono<Authentication> again(Authentication accepted, CallerChecks acceptedBy) {
		if (acceptedBy.authentication() == authentication) {
			return Mono.just(accepted);
		}
		Authentication presented = accepted instanceof TokenAuthentication token
				? new BearerTokenAuthenticationToken(token.getToken().getTokenValue()) : accepted;
		return authentication.authenticate(presented);
	}

	@Override
	public String toString() {
		return "CallerChecks[" + apiKeys.size() + " api-keys, " + (keys == null ? "no jwt" : "jwt") + "]";
	}

}
