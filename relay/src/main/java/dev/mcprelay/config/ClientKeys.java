package dev.mcprelay.config;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.Base64;

import com.nimbusds.jose.jwk.RSAKey;

/**
 * The relay's own key for {@code private_key_jwt} client authentication ({@code servers.<id>.oauth2.private-key}): an
 * RSA private key in PEM (PKCS#8), as a JWK with its public half (derived from the private key's CRT parameters).
 */
public final class ClientKeys {

	private ClientKeys() {
	}

	/** The key as a JWK, or {@code null} when {@code pem} is no RSA private key in PKCS#8 PEM. */
	public static RSAKey rsaKey(String pem, String keyId) {
		try {
			String base64 = pem.replace("-----BEGIN PRIVATE KEY-----", "")
				.replace("-----END PRIVATE KEY-----", "")
				.replaceAll("\\s", "");
			KeyFactory factory = KeyFactory.getInstance("RSA");
			if (!(factory.generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)))
					instanceof RSAPrivateCrtKey privateKey)) {
				return null;
			}
			BigInteger modulus = privateKey.getModulus();
			RSAPublicKey publicKey = (RSAPublicKey) factory
				.generatePublic(new RSAPublicKeySpec(modulus, privateKey.getPublicExponent()));
			RSAKey.Builder key = new RSAKey.Builder(publicKey).privateKey(privateKey);
			if (keyId != null && !keyId.isBlank()) {
				key.keyID(keyId);
			}
			return key.build();
		}
		catch (GeneralSecurityException | IllegalArgumentException ex) {
			return null;
		}
	}

}
