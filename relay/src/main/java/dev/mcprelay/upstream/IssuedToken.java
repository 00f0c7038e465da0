package dev.mcprelay.upstream;

import java.time.Duration;
import java.time.Instant;

import org.springframework.security.oauth2.core.OAuth2AccessToken;

import reactor.core.publisher.Mono;

/**
 * One token request of a {@link TokenSource}, shared by every request that waits for it until {@link TokenRenewal} says
 * to renew it (or the request failed), and the value it issued once it has: so that the token an upstream refused is
 * forgotten only while it is still the one kept. A hundred requests refused with one stale token then ask for one new
 * token between them, not one each (each used to forget whatever was kept, the new token too, and the authorization
 * server met a request per refusal).
 */
final class IssuedToken {

	private final Mono<OAuth2AccessToken> token;

	private volatile String value;

	/**
	 * {@code request}, made once for every subscriber; {@code failed} runs when it fails (with this), so that the next
	 * request asks again.
	 */
	IssuedToken(Mono<OAuth2AccessToken> request, java.util.function.Consumer<IssuedToken> failed) {
		this.token = request.doOnNext(issued -> this.value = issued.getTokenValue())
			.cache(issued -> TokenRenewal.useFor(issued, Instant.now()), error -> {
				failed.accept(this);
				return Duration.ZERO;
			}, () -> Duration.ZERO);
	}

	Mono<OAuth2AccessToken> token() {
		return token;
	}

	/** Whether this request issued {@code refused} (false while it is still being made: it is newer than that). */
	boolean issued(String refused) {
		return refused != null && refused.equals(value);
	}

}
