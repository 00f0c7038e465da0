package dev.mcprelay.security;

import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

import dev.mcprelay.http.ExpiringConnectionAttribute;
import io.netty.util.AttributeKey;

/**
 * The bearer token the last accepted request on one client connection presented, and what it authenticated: kept on
 * that connection (never shared with another) so that the next request presenting the very same token is served
 * without checking it again, until the deadline the token was accepted with ({@link ValidatedTokens#keptUntilNanos}:
 * {@link ValidatedTokens#KEPT} after it was checked, never past its {@code exp}), also when it came from the cache of
 * accepted tokens: no connection starts a window of its own. The front door removes it from the connection at that
 * deadline, so the token is not held past it either; the comparison takes the same time wherever the tokens differ. A request presenting anything else is checked as usual and, if accepted, takes
 * the place. Comparing a token (a kilobyte, as authorization servers write them) with the kept one costs less than
 * hashing it to look it up (an interleaved A/B on the nginx upstream: jwt mode's CPU per request 0.87x); what this
 * keeps is what the connection itself carried a moment before, for as long as the connection lives at most. API keys
 * are not kept: checking one is hashing a short key, no dearer than keeping it (the same A/B: 1.08x, within noise).
 *
 * <p>An intermediary that pools connections for many clients gains nothing and loses nothing: a credential is reused
 * only for a request that presents exactly the same one, which would have been accepted anyway.
 *
 * <p>It serves only requests whose configuration snapshot checks tokens with the manager that accepted it
 * ({@link #checkedBy}): after a reload that changed the JWT settings, the token is checked again by the new ones.
 *
 * @param credential the bearer token as presented
 * @param accepted what the credential authenticated
 * @param checkedBy the authentication manager that accepted it (a snapshot's, {@link CallerChecks})
 * @param keptUntilNanos {@link System#nanoTime()} past which it is checked again
 */
record ConnectionCredential(String credential, Authentication accepted, Object checkedBy, long keptUntilNanos) {

	/** The connection attribute that holds it. */
	static final AttributeKey<ConnectionCredential> KEY = AttributeKey.valueOf(ConnectionCredential.class.getName());

	/** How the front door keeps it on a connection: until its deadline, then removed. */
	static final ExpiringConnectionAttribute<ConnectionCredential> ON_CONNECTION = new ExpiringConnectionAttribute<>(KEY,
			ConnectionCredential::keptUntilNanos);

	/**
	 * {@code accepted}, authenticated from {@code credential} by {@code checkedBy} (and seen at {@code nowNanos}), kept
	 * until its deadline.
	 */
	static ConnectionCredential of(String credential, Authentication accepted, Object checkedBy, long nowNanos) {
		return new ConnectionCredential(credential, accepted, checkedBy,
				ValidatedTokens.keptUntilNanos(accepted, nowNanos));
	}

	/** Whether this serves a request presenting {@code presented} at {@code nowNanos}. */
	boolean serves(String presented, long nowNanos) {
		return nowNanos - keptUntilNanos < 0 && sameInConstantTime(credential, presented);
	}

	/** How long from {@code nowNanos} it is kept: zero when its deadline has passed. */
	long keptForNanos(long nowNanos) {
		return Math.max(0, keptUntilNanos - nowNanos);
	}

	/**
	 * Whether {@code presented} is {@code kept}, in a time that depends on {@code kept}'s length only: every character
	 * of it is compared, wherever the first difference is.
	 */
	static boolean sameInConstantTime(String kept, String presented) {
		int difference = kept.length() ^ presented.length();
		int presentedLength = presented.length();
		for (int i = 0; i < kept.length(); i++) {
			difference |= kept.charAt(i) ^ (i < presentedLength ? presented.charAt(i) : 0);
		}
		return difference == 0;
	}

	/** The token {@code presented} (as a {@link CredentialReader} read it) carries; {@code null} for anything else. */
	static String credentialOf(Authentication presented) {
		if (presented instanceof BearerTokenAuthenticationToken bearer) {
			return bearer.getToken();
		}
		return null;
	}

	@Override
	public String toString() {
		return "ConnectionCredential[" + accepted.getName() + "]";
	}

}
