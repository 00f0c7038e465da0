package dev.mcprelay.security;

import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.util.UriComponents;
import org.springframework.web.util.UriComponentsBuilder;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.SignedJWT;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * The signing keys of {@code jwt} mode: the authorization server's JWK Set, from {@code jwk-set-uri} or from the
 * {@code jwks_uri} of {@code issuer-uri}'s metadata (read once, then kept), as the key source of Spring Security's
 * {@code NimbusReactiveJwtDecoder}. How long a key is trusted, and what a caller can make the relay fetch, are bounded:
 * <ul>
 * <li>the set is fetched again every {@code jwk-set-refresh-interval} (a timer, whether tokens arrive or not), so a key
 * the authorization server removed is not trusted for longer than that interval and one fetch
 * ({@value JwtDecoding#KEYS_TIMEOUT_SECONDS} s to connect and to answer, {@link #FETCH_BOUND} in all), plus the
 * {@link ValidatedTokens#KEPT} that a token already accepted is kept;</li>
 * <li>a token that names a key the set does not hold (a new key, or one made up) has the set fetched again only when
 * {@code jwk-set-refetch-cooldown} has passed since the last fetch; within it the token is refused as signed by an
 * unknown key (401 {@code invalid_signature}), or as unverifiable (503) when that last fetch failed. However many such
 * tokens arrive, at once or one after the other, the relay fetches at most once per cool-down;</li>
 * <li>one fetch at a time: every check that needs the keys while a fetch is on its way waits for that fetch.</li>
 * </ul>
 * A fetch that fails (the key server down, refusing, slow, answering something that is no JWK Set) keeps the keys
 * already held, so tokens signed with them go on being accepted; it is logged, and a token that needs a key the relay
 * does not hold is answered 503 until a fetch succeeds. Only asymmetric signatures (RSA, RSA-PSS, EC) are verified; a
 * token of any other algorithm never causes a fetch.
 *
 * <p>Runs on the event loops and never blocks: fetches go through a non-blocking {@link WebClient}, and a check that
 * waits for one is resumed when it completes.
 */
final class JwkSetKeys implements Function<SignedJWT, Flux<JWK>>, DisposableBean {

	private static final Logger log = LoggerFactory.getLogger(JwkSetKeys.class);

	/** The algorithms whose keys this source holds: asymmetric signatures only. */
	static final Set<JWSAlgorithm> ALGORITHMS = Set.copyOf(union(JWSAlgorithm.Family.RSA, JWSAlgorithm.Family.EC));

	/** The longest one fetch (with the issuer's metadata, the first time) takes before it counts as failed. */
	static final Duration FETCH_BOUND = Duration.ofSeconds(3L * JwtDecoding.KEYS_TIMEOUT_SECONDS);

	private static final ParameterizedTypeReference<Map<String, Object>> METADATA = new ParameterizedTypeReference<>() {
	};

	/** What was last fetched, and how the last attempt went. */
	private record State(JWKSet keys, long attemptedAtNanos, boolean lastAttemptFailed) {
	}

	private final WebClient web;

	private final String issuer;

	private final long cooldownNanos;

	private final AtomicReference<String> jwkSetUri = new AtomicReference<>();

	private final AtomicReference<State> state = new AtomicReference<>();

	private final AtomicReference<Mono<JWKSet>> fetching = new AtomicReference<>();

	private final Disposable timer;

	/** Set once the relay shuts down: a fetch still running then fails silently, its warning of no use to anyone. */
	private volatile boolean destroyed;

	/**
	 * @param jwkSetUri the JWK Set's address, or {@code null} to find it in {@code issuer}'s metadata
	 * @param issuer the issuer whose metadata names the JWK Set, when {@code jwkSetUri} is {@code null}
	 */
	JwkSetKeys(WebClient web, String jwkSetUri, String issuer, Duration refreshInterval, Duration cooldown) {
		this.web = web;
		this.issuer = issuer;
		this.jwkSetUri.set(jwkSetUri);
		this.cooldownNanos = cooldown.toNanos();
		this.timer = Flux.interval(refreshInterval, refreshInterval, Schedulers.parallel())
			.subscribe(tick -> fetchSince(state.get()).subscribe(keys -> {
			}, failure -> {
			}));
	}

	/** The keys that may have signed {@code jwt}; empty when none may (Nimbus then refuses it as signed by no known key). */
	@Override
	public Flux<JWK> apply(SignedJWT jwt) {
		JWSHeader header = jwt.getHeader();
		if (!ALGORITHMS.contains(header.getAlgorithm())) {
			return Flux.empty();
		}
		JWKSelector selector = new JWKSelector(JWKMatcher.forJWSHeader(header));
		State current = state.get();
		if (current != null && current.keys() != null) {
			List<JWK> held = selector.select(current.keys());
			if (!held.isEmpty()) {
				return Flux.fromIterable(held);
			}
		}
		if (current != null && System.nanoTime() - current.attemptedAtNanos() < cooldownNanos) {
			return current.lastAttemptFailed() ? Flux.error(unavailable()) : Flux.empty();
		}
		return fetchSince(current).flatMapIterable(selector::select);
	}

	/**
	 * The keys as fetched after {@code seen}: the fetch on its way, the outcome of one that ended since {@code seen} was
	 * read (so that checks racing one another never fetch twice), or a new fetch. A fetch's outcome is shared by
	 * everyone who waits for it, and it runs to its end whoever stops waiting (it is bounded by {@link #FETCH_BOUND}).
	 */
	Mono<JWKSet> fetchSince(State seen) {
		Sinks.One<JWKSet> outcome = Sinks.one();
		Mono<JWKSet> shared = outcome.asMono();
		do {
			Mono<JWKSet> current = fetching.get();
			if (current != null) {
				return current;
			}
			if (state.get() != seen) {
				return outcomeOf(state.get());
			}
		}
		while (!fetching.compareAndSet(null, shared));
		State latest = state.get();
		if (latest != seen) {
			// A fetch started and ended between the look above and this one's turn: whoever took this one's outcome
			// meanwhile gets that fetch's.
			fetching.set(null);
			outcomeOf(latest).subscribe(outcome::tryEmitValue, outcome::tryEmitError, outcome::tryEmitEmpty);
			return shared;
		}
		long startedAt = System.nanoTime();
		location().flatMap(this::read)
			.switchIfEmpty(Mono.error(() -> new IllegalStateException("The JWK Set's answer was empty")))
			.timeout(FETCH_BOUND)
			.subscribe(keys -> {
				state.set(new State(keys, startedAt, false));
				fetching.set(null);
				outcome.tryEmitValue(keys);
			}, failure -> {
				state.set(new State(latest == null ? null : latest.keys(), startedAt, true));
				fetching.set(null);
				if (!destroyed) {
					log.warn("The authorization server's keys could not be fetched ({}); the keys held are used "
							+ "meanwhile", describe(failure));
				}
				outcome.tryEmitError(failure);
			});
		return shared;
	}

	/** What a fetch that ended as {@code ended} answers those who would have waited for it. */
	private Mono<JWKSet> outcomeOf(State ended) {
		return ended.lastAttemptFailed() ? Mono.error(unavailable()) : Mono.justOrEmpty(ended.keys());
	}

	private IllegalStateException unavailable() {
		return new IllegalStateException("The authorization server's keys could not be fetched; the relay tries again "
				+ "within " + Duration.ofNanos(cooldownNanos).toSeconds() + "s");
	}

	/** Where the JWK Set is: configured, or found once in the issuer's metadata (a failure is not kept). */
	private Mono<String> location() {
		String known = jwkSetUri.get();
		if (known != null) {
			return Mono.just(known);
		}
		return Flux.fromIterable(metadataLocations(issuer))
			.concatMap(uri -> web.get().uri(uri.toUri()).exchangeToMono(response -> response.statusCode()
				.is2xxSuccessful() ? response.bodyToMono(METADATA) : response.releaseBody().then(Mono.empty())))
			.next()
			.switchIfEmpty(Mono.error(() -> new IllegalStateException("No metadata found for issuer " + issuer)))
			.map(metadata -> {
				if (!issuer.equals(metadata.get("issuer"))) {
					throw new IllegalStateException("The metadata found for issuer " + issuer + " names another issuer");
				}
				if (!(metadata.get("jwks_uri") instanceof String uri) || uri.isBlank()) {
					throw new IllegalStateException("The metadata of issuer " + issuer + " names no jwks_uri");
				}
				jwkSetUri.set(uri);
				return uri;
			});
	}

	/** The places OpenID Connect Discovery and RFC 8414 put an issuer's metadata, in the order Spring Security tries them. */
	static List<UriComponents> metadataLocations(String issuer) {
		UriComponents uri = UriComponentsBuilder.fromUriString(issuer).build();
		String path = uri.getPath() == null ? "" : uri.getPath();
		return List.of(
				UriComponentsBuilder.newInstance().uriComponents(uri).replacePath(path + "/.well-known/openid-configuration").build(),
				UriComponentsBuilder.newInstance().uriComponents(uri).replacePath("/.well-known/openid-configuration" + path).build(),
				UriComponentsBuilder.newInstance().uriComponents(uri).replacePath("/.well-known/oauth-authorization-server" + path).build());
	}

	private Mono<JWKSet> read(String uri) {
		return web.get().uri(uri).retrieve().bodyToMono(String.class).map(body -> {
			try {
				return JWKSet.parse(body);
			}
			catch (ParseException notKeys) {
				throw new IllegalStateException("The answer of " + uri + " is no JWK Set", notKeys);
			}
		});
	}

	private static String describe(Throwable failure) {
		return failure.getClass().getSimpleName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
	}

	private static Set<JWSAlgorithm> union(Set<JWSAlgorithm> first, Set<JWSAlgorithm> second) {
		Set<JWSAlgorithm> all = new java.util.HashSet<>(first);
		all.addAll(second);
		return all;
	}

	@Override
	public void destroy() {
		destroyed = true;
		timer.dispose();
	}

}
