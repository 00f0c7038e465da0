package dev.mcprelay.security;

import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.api.Caller;

/**
 * Where the front door leaves the {@link Caller} it established for an HTTP exchange, for everything after it
 * (interceptors' {@code CallContext}, the access log, session binding, virtual-server member calls).
 */
public final class ExchangeCaller {

	/** The exchange attribute holding the caller. */
	public static final String ATTRIBUTE = Caller.class.getName();

	private ExchangeCaller() {
	}

	/** The caller of {@code exchange}; {@link Caller#ANONYMOUS} when the front door established none. */
	public static Caller of(ServerWebExchange exchange) {
		Caller caller = exchange.getAttribute(ATTRIBUTE);
		return caller != null ? caller : Caller.ANONYMOUS;
	}

}
