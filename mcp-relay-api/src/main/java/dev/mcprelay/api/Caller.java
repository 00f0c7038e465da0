package dev.mcprelay.api;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who sent a request, as the front door established it ({@code mcp-relay.security}); every interceptor stage sees it
 * through {@code CallContext.caller()}, the access log writes its {@link #id()}, and configured headers and injected
 * arguments can copy its {@link #claim claims}. The caller's own credential is not part of it.
 *
 * @param id the caller's id: the API key's {@code client}, the token's {@code client-claim}; {@code null} when
 * anonymous, and never {@code null} or blank otherwise (sessions, quotas and rate limits are kept per caller id, so two
 * callers without an id would be one)
 * @param kind how the caller proved who it is
 * @param scopes the token's scopes; empty for API keys and anonymous callers
 * @param claims the token's claims; for an API key {@code sub} and {@code client_id}, both its client id
 */
public record Caller(String id, Kind kind, Set<String> scopes, Map<String, Object> claims) {

	/** The {@code client} metric tag of every caller that is not a configured API-key client. */
	public static final String UNTAGGED_CLIENT = "none";

	/** A request to a relay whose security mode is {@code none}, or to a path that needs no credentials. */
	public static final Caller ANONYMOUS = new Caller(null, Kind.ANONYMOUS, Set.of(), Map.of());

	/** How a caller proved who it is. */
	public enum Kind {

		/** A key from {@code mcp-relay.security.api-keys}. */
		API_KEY,

		/** A JWT access token. */
		JWT,

		/** Nothing: the relay asks for nothing. */
		ANONYMOUS

	}

	public Caller {
		if (kind == null) {
			throw new IllegalArgumentException("A caller has a kind");
		}
		if (kind != Kind.ANONYMOUS && (id == null || id.isBlank())) {
			throw new IllegalArgumentException("A " + kind + " caller has an id that is not blank: sessions, quotas "
					+ "and rate limits are kept per caller id, so callers without one would share them");
		}
		scopes = scopes == null ? Set.of() : Set.copyOf(scopes);
		claims = claims == null ? Map.of() : withoutNulls(claims);
	}

	/** The claims with a name and a value: a token may carry {@code null} values, which say nothing. */
	private static Map<String, Object> withoutNulls(Map<String, Object> claims) {
		Map<String, Object> kept = new java.util.HashMap<>();
		claims.forEach((name, value) -> {
			if (name != null && value != null) {
				kept.put(name, value);
			}
		});
		return Map.copyOf(kept);
	}

	/** A client of {@code mcp-relay.security.api-keys}, as the front door makes it: {@code sub} and {@code client_id} its id. */
	public static Caller apiKey(String client) {
		return new Caller(client, Kind.API_KEY, Set.of(),
				client == null ? Map.of() : Map.of("sub", client, "client_id", client));
	}

	/** The bearer of a validated JWT: {@code id} the value of the configured {@code client-claim}. */
	public static Caller token(String id, Set<String> scopes, Map<String, Object> claims) {
		return new Caller(id, Kind.JWT, scopes, claims);
	}

	/** The value of claim {@code name}, or {@code null}. */
	public Object claim(String name) {
		return claims.get(name);
	}

	/**
	 * Claim {@code name} as text for a header: a string as it is, a list as its values joined by ", ", a number or
	 * boolean as written; {@code null} when the caller has no such claim or it is an object.
	 */
	public String claimAsText(String name) {
		Object value = claims.get(name);
		if (value instanceof Collection<?> values) {
			List<String> texts = values.stream().map(String::valueOf).toList();
			return texts.isEmpty() ? null : String.join(", ", texts);
		}
		if (value instanceof String || value instanceof Number || value instanceof Boolean) {
			return String.valueOf(value);
		}
		if (value instanceof java.time.Instant instant) {
			return String.valueOf(instant.getEpochSecond());
		}
		return null;
	}

	/** The {@code client} tag of this caller's requests: its id for an API-key client, never a token's subject. */
	public String metricTag() {
		return kind == Kind.API_KEY ? id : UNTAGGED_CLIENT;
	}

	@Override
	public String toString() {
		return "Caller[" + kind + (id == null ? "" : " " + id) + "]";
	}

}
