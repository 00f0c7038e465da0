package dev.mcprelay.security;

import java.util.List;

import org.springframework.security.authentication.AbstractAuthenticationToken;

import dev.mcprelay.api.Caller;

/**
 * An API key on its way through Spring Security: first as presented (not authenticated, holding the key until it is
 * checked), then as accepted (authenticated, holding the {@link Caller} and the key's SHA-256, no longer the key).
 * The hash is what a later snapshot checks the accepted key by again ({@link ApiKeys}), so that a reload that revokes
 * the key ends the streams it opened; it is never printed. Which servers the key opens is the request's configuration
 * snapshot's ({@link KeyServers}).
 */
final class ApiKeyAuthentication extends AbstractAuthenticationToken {

	private final transient String presentedKey;

	private final Caller caller;

	private final boolean management;

	private final transient byte[] keySha256;

	private ApiKeyAuthentication(String presentedKey, Caller caller, boolean management, byte[] keySha256) {
		super(List.of());
		this.presentedKey = presentedKey;
		this.caller = caller;
		this.management = management;
		this.keySha256 = keySha256;
		setAuthenticated(caller != null);
	}

	static ApiKeyAuthentication presented(String key) {
		return new ApiKeyAuthentication(key, null, false, null);
	}

	static ApiKeyAuthentication accepted(Caller caller, boolean management, byte[] keySha256) {
		return new ApiKeyAuthentication(null, caller, management, keySha256);
	}

	/** The SHA-256 of the key an accepted authentication was accepted with; {@code null} while presented. */
	byte[] keySha256() {
		return keySha256;
	}

	/** Whether the key may read the relay's management endpoints ({@code management: true}). */
	boolean management() {
		return management;
	}

	String presentedKey() {
		return presentedKey;
	}

	@Override
	public Object getCredentials() {
		return null;
	}

	@Override
	public Caller getPrincipal() {
		return caller;
	}

	@Override
	public String getName() {
		return caller == null ? "" : caller.id();
	}

	@Override
	public String toString() {
		return "ApiKeyAuthentication[" + (caller == null ? "presented" : caller.id()) + "]";
	}

}
