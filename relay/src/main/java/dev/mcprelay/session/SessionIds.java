package dev.mcprelay.session;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The ids of relay sessions (DESIGN section 7): 256 bits from a DRBG, Base64url. The DRBG is seeded once, when the
 * class loads at start-up: the platform's default {@link SecureRandom} reads the operating system's source on every
 * call, a blocking read that has no place on an event loop.
 */
public final class SessionIds {

	private static final SecureRandom RANDOM = drbg();

	private SessionIds() {
	}

	/** A new, unguessable session id. */
	public static String mint() {
		byte[] bytes = new byte[32];
		RANDOM.nextBytes(bytes);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
	}

	private static SecureRandom drbg() {
		SecureRandom random;
		try {
			random = SecureRandom.getInstance("DRBG");
		}
		catch (NoSuchAlgorithmException ex) {
			random = new SecureRandom();
		}
		random.nextBytes(new byte[32]);
		return random;
	}

}
