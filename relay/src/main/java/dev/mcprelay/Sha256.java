package dev.mcprelay;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The SHA-256 of a text's UTF-8 bytes (or of bytes): how the relay keys what it must not keep or show as it is
 * (tokens it caches, a caller's id in Redis, a session id on a span, the params a server request's id stands for).
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
		return digest(text.getBytes(StandardCharsets.UTF_8));
	}

	/** The 32 bytes of the digest of {@code bytes}. */
	public static byte[] digest(byte[] bytes) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(bytes);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
	}

}
