package dev.mcprelay.upstream;

import java.time.Duration;
import java.time.Instant;

import org.springframework.security.oauth2.core.OAuth2AccessToken;

/**
 * When a cached upstream token is renewed: a little before it expires, in proportion to its lifetime, so that a token
 * that lives ten seconds is used for eight and one that lives an hour for fifty-nine minutes; never after it expired,
 * so an upstream never receives an expired token. (Spring Security's fixed clock skew of a minute would renew a
 * ten-second token on every request.)
 */
final class TokenRenewal {

	/** The most a token is renewed ahead of its expiry. */
	static final Duration MAX_MARGIN = Duration.ofSeconds(60);

	/** The share of its lifetime a token is renewed ahead of its expiry, at most {@link #MAX_MARGIN}. */
	static final double MARGIN_SHARE = 0.2;

	/**
	 * A token without an expiry is used for this long; the token responses the relay reads always give one
	 * ({@link TokenResponseLifetime}), so this is for a token whose expiry is lost on the way.
	 */
	static final Duration WITHOUT_EXPIRY = Duration.ofMinutes(5);

	private TokenRenewal() {
	}

	/** How long {@code token}, received at {@code now}, is used before a new one is asked for. */
	static Duration useFor(OAuth2AccessToken token, Instant now) {
		Instant expires = token.getExpiresAt();
		if (expires == null) {
			return WITHOUT_EXPIRY;
		}
		Instant issued = token.getIssuedAt() != null ? token.getIssuedAt() : now;
		Duration lifetime = Duration.between(issued, expires);
		Duration margin = lifetime.multipliedBy((long) (MARGIN_SHARE * 1000)).dividedBy(1000);
		if (margin.compareTo(MAX_MARGIN) > 0) {
			margin = MAX_MARGIN;
		}
		Duration left = Duration.between(now, expires).minus(margin);
		return left.isNegative() ? Duration.ZERO : left;
	}

}
