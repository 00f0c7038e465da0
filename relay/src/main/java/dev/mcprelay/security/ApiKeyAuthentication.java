package dev.mcprelay.security;

import java.util.List;

import org.springframework.security.authentication.AbstractAuthenticationToken;

import dev.mcprelay.api.Caller;

/**
 * An API key on its way through Spring Security: first as presented (not authenticated, holding the key until it is
 * checked), then as accepted (authenticated, holding the {@link Caller}, and no longer the key). Which servers the
 * key opens is the request's configuration snapshot's ({@link KeyServers}).
 */
final class ApiKeyAuthentication extends AbstractAuthenticationToken {

	private final transient String presentedKey;

	private final Caller caller;

	private final boolean management;

	private ApiKeyAuthentication(String presentedKey, Caller caller, boolean management) {
		super(List.of());
		this.presentedKey = presentedKey;
		this.caller = caller;
		this.management = management;
		setAuthenticated(caller != null);
	}

	static ApiKeyAuthentication presented(String key) {
		return new ApiKeyAuthentication(key, null, false);
	}

	static ApiKeyAuthentication accepted(Caller caller, boolean management) {
		return new ApiKeyAuthentication(null, caller, management);
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
