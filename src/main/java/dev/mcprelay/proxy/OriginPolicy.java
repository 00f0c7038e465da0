package dev.mcprelay.proxy;

import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;

/**
 * Guards the relay's own endpoint against DNS rebinding: a request that carries an {@code Origin} header must come
 * from an origin listed in {@code mcp-relay.allowed-origins}, or it is refused with 403 before anything else
 * happens. Requests without {@code Origin} (agents, IDEs, curl) are not browsers and pass.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning">MCP
 * transports, security warning</a>
 */
@Component
public class OriginPolicy {

	private final boolean allowAny;

	private final Set<String> allowed;

	public OriginPolicy(RelayProperties properties) {
		this.allowAny = properties.allowedOrigins().contains("*");
		this.allowed = properties.allowedOrigins().stream().map(OriginPolicy::normalize).collect(Collectors.toUnmodifiableSet());
	}

	/** Throws a 403 {@link RelayFailure} when the request's origin is not allowed. */
	public void check(HttpHeaders headers) {
		String origin = headers.getOrigin();
		if (origin != null && !allowAny && !allowed.contains(normalize(origin))) {
			throw RelayFailures.originNotAllowed(origin);
		}
	}

	private static String normalize(String origin) {
		String lower = origin.toLowerCase(Locale.ROOT);
		return lower.endsWith("/") ? lower.substring(0, lower.length() - 1) : lower;
	}

}
