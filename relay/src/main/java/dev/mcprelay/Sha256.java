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

	private Sha256() {
	}

	/** 64 lower-case hex digits. */
	public static String hex(String text) {
		return HexFormat.of().formatHex(bytes(text));
	}

	/** The 32 bytes of the digest. */
	public static byte[] bytes(String text) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
	}

}
