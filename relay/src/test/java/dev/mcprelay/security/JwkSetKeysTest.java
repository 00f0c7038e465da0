package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import dev.mcprelay.config.JwtProperties;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import dev.mcprelay.testsupport.TestAuthorizationServer.JwksFault;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The relay's JWT decoder over a real JWK Set endpoint that counts its fetches ({@link JwkSetKeys}): a key removed from
 * the set stops being trusted once the set is fetched again on its schedule, also for a token the relay never saw; a
 * flood of tokens naming made-up keys, at once or one after the other, costs one fetch per cool-down; a failed fetch
 * is not repeated within the cool-down; tokens of other algorithms never cause a fetch.
 */
class JwkSetKeysTest {

	private final TestAuthorizationServer auth = new TestAuthorizationServer();

	private final List<JwkSetKeys> sources = new ArrayList<>();

	@AfterEach
	void stop() {
		sources.forEach(JwkSetKeys::destroy);
		auth.close();
	}

	@Test
	void aRemovedKeyIsNoLongerTrustedOnceTheSetIsFetchedAgain() throws Exception {
		// Published before the decoder's timer starts: made after it, the key (an RSA key takes a while to make on a
		// busy machine) could miss the timer's first fetch, and a token naming it would wait out the 30 s cool-down.
		RSAKey removed = TestAuthorizationServer.newKey();
		auth.publish(removed);
		ReactiveJwtDecoder decoder = decoder(Duration.ofSeconds(1), Duration.ofSeconds(30));
		assertThat(decoder.decode(token(auth.key())).block()).as("the set is fetched, with both keys").isNotNull();
		assertThat(decoder.decode(token(removed)).block()).isNotNull();

		auth.withdraw(removed);
		int fetchesAtRemoval = auth.jwksRequests();
		// The fetch after the one that may have been under way at the removal: a set without the key has arrived.
		awaitFetches(fetchesAtRemoval + 2);

		assertThatThrownBy(() -> decoder.decode(token(removed)).block())
			.as("a token the relay never saw, signed with the removed key").isInstanceOf(BadJwtException.class);
		assertThat(decoder.decode(token(auth.key())).block()).as("the key that stays").isNotNull();
	}

	@Test
	void madeUpKeyIdsCostOneFetchPerCooldownAtOnceOrOneAfterTheOther() {
		ReactiveJwtDecoder decoder = decoder(Duration.ofMinutes(5), Duration.ofSeconds(30));

		List<Throwable> concurrent = Flux.range(0, 100)
			.flatMap(i -> decoder.decode(token(unknownKey()))
				.map(jwt -> (Throwable) new AssertionError("accepted"))
				.onErrorResume(Mono::just), 100)
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(concurrent).hasSize(100).allMatch(BadJwtException.class::isInstance);
		assertThat(auth.jwksRequests()).as("100 tokens with unknown keys at once: one fetch").isEqualTo(1);

		for (int i = 0; i < 100; i++) {
			String unknown = token(unknownKey());
			assertThatThrownBy(() -> decoder.decode(unknown).block()).isInstanceOf(BadJwtException.class);
		}
		assertThat(auth.jwksRequests()).as("and 100 more one after the other, within the cool-down: none").isEqualTo(1);
		assertThat(decoder.decode(token(auth.key())).block()).as("a real key is held").isNotNull();
		assertThat(auth.jwksRequests()).isEqualTo(1);
	}

	@Test
	void aFailedFetchIsNotRepeatedWithinTheCooldownAndIsNeverTheTokensFault() {
		ReactiveJwtDecoder decoder = decoder(Duration.ofMinutes(5), Duration.ofSeconds(30));
		auth.fault(JwksFault.UNAVAILABLE);

		for (int i = 0; i < 3; i++) {
			assertThatThrownBy(() -> decoder.decode(token(auth.key())).block()).as("503, not 401")
				.isInstanceOf(JwtException.class)
				.isNotInstanceOf(BadJwtException.class);
		}
		assertThat(auth.jwksRequests()).isEqualTo(1);
	}

	@Test
	void anEmptyAnswerIsAFailedFetchNotTheEndOfFetching() {
		ReactiveJwtDecoder decoder = decoder(Duration.ofMinutes(5), Duration.ZERO);
		auth.fault(JwksFault.EMPTY);
		assertThatThrownBy(() -> decoder.decode(token(auth.key())).block(Duration.ofSeconds(10)))
			.as("503, at once, not after the fetch bound").isInstanceOf(JwtException.class)
			.isNotInstanceOf(BadJwtException.class);

		auth.fault(JwksFault.NONE);
		assertThat(decoder.decode(token(auth.key())).block(Duration.ofSeconds(10)))
			.as("the next fetch happens and works").isNotNull();
		assertThat(auth.jwksRequests()).isEqualTo(2);
	}

	@Test
	void withoutCooldownEveryUnknownKeyFetchesButOneFetchAtATime() {
		ReactiveJwtDecoder decoder = decoder(Duration.ofMinutes(5), Duration.ZERO);
		RSAKey later = TestAuthorizationServer.newKey();
		assertThat(decoder.decode(token(auth.key())).block()).isNotNull();

		auth.publish(later);
		assertThat(decoder.decode(token(later)).block()).as("a key published since is fetched").isNotNull();
		assertThat(auth.jwksRequests()).isEqualTo(2);
	}

	@Test
	void tokensOfOtherAlgorithmsNeverCauseAFetch() throws Exception {
		ReactiveJwtDecoder decoder = decoder(Duration.ofMinutes(5), Duration.ZERO);
		SignedJWT hmac = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("k1").build(), claims());
		hmac.sign(new MACSigner(new byte[32]));

		assertThatThrownBy(() -> decoder.decode(hmac.serialize()).block()).isInstanceOf(BadJwtException.class);
		assertThat(auth.jwksRequests()).isZero();
	}

	/**
	 * A relay that has shut down says nothing of a fetch that fails after it (a fetch runs to its end whoever stops
	 * waiting for it): the warning would land in whatever runs next, a later relay's log, as it did in a full run.
	 */
	@Test
	void aSourceThatWasDestroyedSaysNothingOfAFetchThatFailsAfterIt() {
		JwtProperties jwt = new JwtProperties(null, "http://127.0.0.1:" + dev.mcprelay.testsupport.TestUpstreams.REFUSED_PORT
				+ "/jwks", null, null, List.of(), "sub", List.of(), Duration.ofMinutes(5), Duration.ofSeconds(30));
		JwkSetKeys keys = JwtDecoding.keys(jwt);
		keys.destroy();
		int mark = dev.mcprelay.testsupport.CapturedLogs.all().size();

		assertThatThrownBy(() -> keys.fetchSince(null).block(Duration.ofSeconds(20))).as("the fetch fails")
			.isNotNull();

		assertThat(dev.mcprelay.testsupport.CapturedLogs.since(mark))
			.noneMatch(line -> line.contains("keys could not be fetched"));
	}

	private ReactiveJwtDecoder decoder(Duration refresh, Duration cooldown) {
		JwtProperties jwt = new JwtProperties(null, auth.issuer() + "/jwks", null, null, List.of(), "sub", List.of(), refresh,
				cooldown);
		JwkSetKeys keys = JwtDecoding.keys(jwt);
		sources.add(keys);
		return JwtDecoding.decoder(jwt, keys);
	}

	private void awaitFetches(int fetches) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (auth.jwksRequests() < fetches) {
			assertThat(System.nanoTime()).as("the set is fetched again on its schedule").isLessThan(deadline);
			Thread.sleep(50);
		}
		// One fetch at a time: the set of the fetch before this one (asked after the removal) is already held.
	}

	private static final RSAKey STRANGER = TestAuthorizationServer.newKey();

	/** A key the authorization server never published, under a key id never used before. */
	private static RSAKey unknownKey() {
		return new RSAKey.Builder(STRANGER).keyID(UUID.randomUUID().toString()).build();
	}

	private static String token(RSAKey key) {
		return TestAuthorizationServer.sign(key, claims());
	}

	private static JWTClaimsSet claims() {
		long now = System.currentTimeMillis();
		return new JWTClaimsSet.Builder().subject("alice-" + UUID.randomUUID())
			.issueTime(new Date(now))
			.expirationTime(new Date(now + 300_000))
			.build();
	}

}
