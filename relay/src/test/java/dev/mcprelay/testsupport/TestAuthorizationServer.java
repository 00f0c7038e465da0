package dev.mcprelay.testsupport;

import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A real authorization server's public side on 127.0.0.1: its metadata ({@code /.well-known/openid-configuration})
 * and its JWK Set ({@code /jwks}), with RSA keys the test makes; tokens are signed here with those keys. The JWK Set
 * can be taken {@link #down(boolean) down} (it then answers 503), and keys can be added later (a rotation), so a test
 * sees what the relay does when it must fetch keys again.
 */
public final class TestAuthorizationServer implements AutoCloseable {

	private final List<RSAKey> published = new CopyOnWriteArrayList<>();

	private final AtomicBoolean down = new AtomicBoolean();

	private final AtomicInteger jwksRequests = new AtomicInteger();

	private volatile JwksFault fault = JwksFault.NONE;

	/** How the JWK Set fails to answer. */
	public enum JwksFault {

		/** It answers with the published keys. */
		NONE,

		/** 503. */
		UNAVAILABLE,

		/** 500 with a body that is no JWK Set. */
		SERVER_ERROR,

		/** 200 with a body that is no JSON. */
		NOT_JSON,

		/** It never answers. */
		HANGS,

		/** 200 with no body at all. */
		EMPTY

	}

	private final DisposableServer server;

	public TestAuthorizationServer() {
		published.add(newKey());
		this.server = HttpServer.create().host("127.0.0.1").port(0).route(routes -> routes
			.get("/.well-known/openid-configuration", (request, response) -> response
				.header("Content-Type", "application/json")
				.sendString(Mono.fromSupplier(() -> "{\"issuer\":\"" + issuer() + "\",\"jwks_uri\":\"" + issuer()
						+ "/jwks\",\"response_types_supported\":[\"code\"],\"subject_types_supported\":[\"public\"],"
						+ "\"id_token_signing_alg_values_supported\":[\"RS256\"]}")))
			.get("/jwks", (request, response) -> switch (counted(down.get() ? JwksFault.UNAVAILABLE : fault)) {
				case UNAVAILABLE -> response.status(503).send();
				case SERVER_ERROR -> response.status(500).sendString(Mono.just("boom"));
				case NOT_JSON -> response.header("Content-Type", "application/json").sendString(Mono.just("<html>"));
				case HANGS -> Mono.never();
				case EMPTY -> response.status(200).send();
				case NONE -> response.header("Content-Type", "application/json")
					.sendString(Mono.fromSupplier(() -> new JWKSet(published.stream()
						.map(key -> (com.nimbusds.jose.jwk.JWK) key.toPublicJWK())
						.toList()).toString()));
			}))
			.bindNow();
	}

	public String issuer() {
		return "http://127.0.0.1:" + server.port();
	}

	/** A JWK Set that answers 503 while down. */
	public void down(boolean isDown) {
		down.set(isDown);
	}

	/** Makes the JWK Set fail this way from now on ({@link JwksFault#NONE}: answer again). */
	public void fault(JwksFault fault) {
		this.fault = fault;
	}

	private JwksFault counted(JwksFault answer) {
		jwksRequests.incrementAndGet();
		return answer;
	}

	/** How many requests the JWK Set has had. */
	public int jwksRequests() {
		return jwksRequests.get();
	}

	/** Takes {@code key} out of the JWK Set (a key the authorization server no longer trusts). */
	public void withdraw(RSAKey key) {
		published.removeIf(candidate -> candidate.getKeyID().equals(key.getKeyID()));
	}

	/** A new key, not yet published. */
	public static RSAKey newKey() {
		try {
			return new RSAKeyGenerator(2048).keyUse(KeyUse.SIGNATURE)
				.algorithm(JWSAlgorithm.RS256)
				.keyID(UUID.randomUUID().toString())
				.generate();
		}
		catch (JOSEException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Publishes {@code key} in the JWK Set. */
	public void publish(RSAKey key) {
		published.add(key);
	}

	/** The first published key. */
	public RSAKey key() {
		return published.get(0);
	}

	/** A token signed with the published key: issuer, the audience, {@code sub}, scopes, valid for 5 minutes. */
	public String token(String audience, String subject, String scope, Map<String, Object> claims) {
		Instant now = Instant.now();
		JWTClaimsSet.Builder builder = new JWTClaimsSet.Builder().issuer(issuer())
			.audience(audience)
			.subject(subject)
			.issueTime(Date.from(now))
			.notBeforeTime(Date.from(now.minusSeconds(5)))
			.expirationTime(Date.from(now.plusSeconds(300)))
			.claim("scope", scope);
		claims.forEach(builder::claim);
		return sign(key(), builder.build());
	}

	/** {@code claims} signed with {@code key} (RS256, with its key id). */
	public static String sign(RSAKey key, JWTClaimsSet claims) {
		try {
			SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
					claims);
			jwt.sign(new RSASSASigner(key));
			return jwt.serialize();
		}
		catch (JOSEException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		server.disposeNow();
	}

}
