package dev.mcprelay.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;

/**
 * The relay's one key for what it carries in messages instead of storing it (DESIGN section 7): HMAC-SHA256 with
 * {@code mcp-relay.sessions.secret}, the same on every replica, or with a random key of this process when none is
 * configured (then only this process trusts what it signed). Used for server-request ids and for session ids bound to
 * their caller. Each user signs texts of its own shape, so one user's signature never verifies another's text.
 */
@Component
public class RelayMac {

	private final SecretKeySpec key;

	private final ThreadLocal<Mac> macs;

	@Autowired
	public RelayMac(RelayProperties properties) {
		this(properties.sessions().secret());
	}

	/** @param secret the shared secret; {@code null} or blank for a random key of this process */
	public RelayMac(String secret) {
		byte[] bytes;
		if (secret != null && !secret.isBlank()) {
			bytes = secret.getBytes(StandardCharsets.UTF_8);
		}
		else {
			bytes = new byte[32];
			new SecureRandom().nextBytes(bytes);
		}
		this.key = new SecretKeySpec(bytes, "HmacSHA256");
		this.macs = ThreadLocal.withInitial(this::newMac);
	}

	/** The signature of {@code text}: Base64url, 43 characters. */
	public String sign(String text) {
		Mac mac = macs.get();
		return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
	}

	/** Whether {@code signature} is this key's signature of {@code text}, compared in constant time. */
	public boolean verifies(String text, String signature) {
		return MessageDigest.isEqual(sign(text).getBytes(StandardCharsets.US_ASCII),
				signature.getBytes(StandardCharsets.US_ASCII));
	}

	private Mac newMac() {
		try {
			Mac mac = Mac.getInstance("HmacSHA256");
			mac.init(key);
			return mac;
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("Every Java runtime has HmacSHA256", ex);
		}
	}

	@Override
	public String toString() {
		return "RelayMac[<redacted>]";
	}

}
