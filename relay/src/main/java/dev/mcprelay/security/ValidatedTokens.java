package dev.mcprelay.security;

import java.time.Duration;
import java.time.Instant;

import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import reactor.core.publisher.Mono;

import dev.mcprelay.Sha256;

/**
 * A token the decoder accepted, kept for {@link #KEPT} at most and never past its own {@code exp}, so that a client that
 * sends the same token on every request has its signature checked and its claims parsed once, not per request (on
 * this machine, checking an RS256 token cost the relay about 5x the CPU of relaying the request).
 *
 * <p>Only accepted tokens are kept: a refused one is checked again each time. Tokens are kept under their SHA-256, never
 * as themselves; {@value #MAX_TOKENS} at most, least recently used first out. What keeping costs: a key removed from
 * the authorization server's key set still has its tokens accepted for up to {@link #KEPT} (as for a relay that
 * fetched the key set just before), and a token is accepted until its {@code exp} at the latest, without the decoder's
 * 60 s of clock skew past it.
 */
final class ValidatedTokens implements ReactiveJwtDecoder {

	/** How long an accepted token is kept at most. */
	static final Duration KEPT = Duration.ofSeconds(30);

	static final int MAX_TOKENS = 10_000;

	private final ReactiveJwtDecoder decoder;

	private final Cache<String, Jwt> accepted = Caffeine.newBuilder()
		.maximumSize(MAX_TOKENS)
		.expireAfter(new UntilExpiry())
		.build();

	ValidatedTokens(ReactiveJwtDecoder decoder) {
		this.decoder = decoder;
	}

	@Override
	public Mono<Jwt> decode(String token) {
		String key = Sha256.hex(token);
		Jwt kept = accepted.getIfPresent(key);
		if (kept != null && (kept.getExpiresAt() == null || Instant.now().isBefore(kept.getExpiresAt()))) {
			return Mono.just(kept);
		}
		return decoder.decode(token).doOnNext(jwt -> accepted.put(key, jwt));
	}


	/** Kept {@link #KEPT} from when it was accepted, or until its {@code exp} if that comes first. */
	private static final class UntilExpiry implements Expiry<String, Jwt> {

		@Override
		public long expireAfterCreate(String key, Jwt jwt, long currentTime) {
			long kept = KEPT.toNanos();
			if (jwt.getExpiresAt() == null) {
				return kept;
			}
			long untilExpiry = Duration.between(Instant.now(), jwt.getExpiresAt()).toNanos();
			return Math.max(0, Math.min(kept, untilExpiry));
		}

		@Override
		public long expireAfterUpdate(String key, Jwt jwt, long currentTime, long currentDuration) {
			return expireAfterCreate(key, jwt, currentTime);
		}

		@Override
		public long expireAfterRead(String key, Jwt jwt, long currentTime, long currentDuration) {
			return currentDuration;
		}

	}

}
