package dev.mcprelay.security;

import java.util.Collection;

import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

import dev.mcprelay.api.Caller;

/**
 * An accepted JWT as Spring Security's {@link JwtAuthenticationToken}, with the {@link Caller} it stands for
 * ({@link TokenCaller}) made once, when the token was accepted: a token kept by {@link ValidatedTokens} serves every
 * later request without its claims being read again. It also carries the one deadline of that acceptance
 * ({@link #keptUntilNanos()}): whoever keeps it (the cache of accepted tokens, a client connection) keeps it until then
 * and no longer, however it came by it.
 */
final class TokenAuthentication extends JwtAuthenticationToken {

	private static final long serialVersionUID = 1L;

	private final transient Caller caller;

	private final long keptUntilNanos;

	TokenAuthentication(JwtAuthenticationToken accepted) {
		this(accepted.getToken(), accepted.getAuthorities(), accepted.getName());
	}

	private TokenAuthentication(Jwt jwt, Collection<? extends GrantedAuthority> authorities, String name) {
		super(jwt, authorities, name);
		this.caller = TokenCaller.of(this);
		this.keptUntilNanos = System.nanoTime() + ValidatedTokens.keptNanos(this);
	}

	Caller caller() {
		return caller;
	}

	/**
	 * The {@link System#nanoTime()} past which this acceptance is no longer used: {@link ValidatedTokens#KEPT} after
	 * the token was checked, or its {@code exp} if that comes first.
	 */
	long keptUntilNanos() {
		return keptUntilNanos;
	}

}
