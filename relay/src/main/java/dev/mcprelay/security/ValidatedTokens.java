package dev.mcprelay.security;

import java.time.Duration;
import java.time.Instant;

import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import dev.mcprelay.Sha256;
import reactor.core.publisher.Mono;

/**
 * A token the JWT authentication manager accepted, kept with what it authenticated (its claims, its authorities, its
 * {@link TokenAuthentication#caller() caller}) for {@link #KEPT} at most and never past its own {@code exp}, so that a
 * client that sends the same token on every request has its signature checked and its claims read once, not per
 * request (on this machine, checking an RS256 token cost the relay about 5x the CPU of relaying the request).
 *
 * <p>Only accepted tokens are kept: a refused one is checked again each time. Tokens are kept under their SHA-256,
 * never as themselves; {@value #MAX_TOKENS} at most, least recently used first out. What keeping costs: a key removed
 * from the authorization server's key set still has its tokens accepted for up to {@link #KEPT} (as for a relay that
 * fetched the key set just before), and a token is accepted until its {@code exp} at the latest, without the
 * decoder's 60 s of clock skew past it.
 *
 * <p>Used by the front door on the MCP paths and by Spring Security's chain on every other path: one cache per JWT
 * settings ({@link CallerAuthentication}): a reload that changes how tokens are decoded makes a new one, empty, so that
 * every token is checked again by the new settings.
 */
final class ValidatedTokens implements ReactiveAuthenticationManager {

	/** How long an accepted token is kept at most. */
	static final Duration KEPT = Duration.ofSeconds(30);

	static final int MAX_TOKENS = 10_000;

	private final ReactiveAuthenticationManager tokens;

	private final Cache<String, JwtAuthenticationToken> accepted = Caffeine.newBuilder()
		.maximumSize(MAX_TOKENS)
		.expireAfter(new UntilExpiry())
		.build();

	/** @param tokens the manager that checks a bearer token when it is not kept */
	ValidatedTokens(ReactiveAuthenticationManager tokens) {
		this.tokens = tokens;
	}

	@Override
	public Mono<Authentication> authenticate(Authentication authentication) {
		if (!(authentication instanceof BearerTokenAuthenticationToken bearer)) {
			return tokens.authenticate(authentication);
		}
		String key = Sha256.hex(bearer.getToken());
		JwtAuthenticationToken kept = accepted.getIfPresent(key);
		if (kept != null && isUnexpired(kept, Instant.now())) {
			return Mono.just(kept);
		}
		return tokens.authenticate(authentication).doOnNext(result -> {
			if (result instanceof JwtAuthenticationToken token) {
				accepted.put(key, token);
			}
		});
	}

	/**
	 * The {@link System#nanoTime()} past which {@code accepted}, as it stands at {@code nowNanos}, is checked again: the
	 * deadline it was accepted with ({@link TokenAuthentication#keptUntilNanos()}), whoever kept it since, or else
	 * {@link #keptNanos} from now. The one rule for every place that keeps an accepted credential: a credential taken
	 * from a cache keeps the cache entry's deadline, never a new window.
	 */
	static long keptUntilNanos(Authentication accepted, long nowNanos) {
		if (accepted instanceof TokenAuthentication token) {
			return token.keptUntilNanos();
		}
		return nowNanos + keptNanos(accepted);
	}

	/**
	 * How long, from now, what {@code accepted} authenticated may be kept when it is accepted: {@link #KEPT}, or less
	 * when a token's {@code exp} comes first (zero when it is past).
	 */
	static long keptNanos(Authentication accepted) {
		long kept = KEPT.toNanos();
		if (!(accepted instanceof JwtAuthenticationToken token) || token.getToken().getExpiresAt() == null) {
			return kept;
		}
		long untilExpiry = Duration.between(Instant.now(), token.getToken().getExpiresAt()).toNanos();
		return Math.max(0, Math.min(kept, untilExpiry));
	}

	private static boolean isUnexpired(JwtAuthenticationToken token, Instant now) {
		Instant expiry = token.getToken().getExpiresAt();
		return expiry == null || now.isBefore(expiry);
	}

	/**
	 * Kept {@link #KEPT} from when it was accepted, or until its {@code exp} if that comes first
	 * ({@link #keptUntilNanos}; Caffeine's clock is {@link System#nanoTime()}).
	 */
	private static final class UntilExpiry implements Expiry<String, JwtAuthenticationToken> {

		@Override
		public long expireAfterCreate(String key, JwtAuthenticationToken token, long currentTime) {
			return Math.max(0, keptUntilNanos(token, currentTime) - currentTime);
		}

		@Override
		public long expireAfterUpdate(String key, JwtAuthenticationToken token, long currentTime,
				long currentDuration) {
			return expireAfterCreate(key, token, currentTime);
		}

		@Override
		public long expireAfterRead(String key, JwtAuthenticationToken token, long currentTime, long currentDuration) {
			return currentDuration;
		}

	}

}
