package dev.mcprelay;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The hex SHA-256 of a text's UTF-8 bytes: how the relay keys what it must not keep or show as it is (tokens it
 * caches, a caller's id in Redis, a session id on a span).
 */
public final class Sha256 {

	/** One digest made once, copied for each use: cheaper than a provider lookup every time (the API key's is per request). */
	private static final MessageDigest PROTOTYPE = newDigest();

	private Sha256() {
	}

	/** 64 lower-case hex digits. */
	public static String hex(String text) {
		return HexFormat.of().formatHex(bytes(text));
	}

	/** The 32 bytes of the digest. */
	public static byte[] bytes(String text) {
		try {
			return ((MessageDigest) PROTOTYPE.clone()).digest(text.getBytes(StandardCharsets.UTF_8));
		}
		catch (CloneNotSupportedException ex) {
			throw new IllegalStateException("This JVM's SHA-256 digest cannot be copied", ex);
		}
	}

	private static MessageDigest newDigest() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
	}

}
