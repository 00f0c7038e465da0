package dev.mcprelay.proxy;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;

/**
 * Guards the relay's own endpoint against DNS rebinding and foreign web pages, as MCP asks of every Streamable HTTP
 * server:
 * <ul>
 * <li>a request that carries an {@code Origin} must come from an origin listed in {@code mcp-relay.allowed-origins}
 * ({@code *} allows any), or, while the relay listens on a loopback address only, from a loopback origin
 * ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}, any port, http or https). Requests without {@code Origin}
 * (agents, IDEs, curl) are not browsers and pass;</li>
 * <li>while the relay listens on a loopback address only, a request whose {@code Host} is not a loopback name is
 * refused: a page on {@code evil.example.com} that rebinds its name to 127.0.0.1 reaches the relay with its own
 * name in {@code Host}. (The relay sends the upstream's own host upstream, so the upstream's Host check cannot catch
 * this; the relay must.)</li>
 * </ul>
 * A refusal is 403 before anything else happens.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning">MCP
 * transports, security warning</a>
 */
@Component
public class OriginPolicy {

	private static final Logger log = LoggerFactory.getLogger(OriginPolicy.class);

	private static final Set<String> LOOPBACK_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]");

	private final boolean allowAny;

	private final Set<String> allowed;

	private final boolean loopbackOnly;

	public OriginPolicy(RelayProperties properties, Environment environment) {
		this.allowAny = properties.allowedOrigins().contains("*");
		this.allowed = properties.allowedOrigins().stream().map(OriginPolicy::normalize).collect(Collectors.toUnmodifiableSet());
		this.loopbackOnly = listensOnLoopback(environment.getProperty("server.address"));
		if (loopbackOnly) {
			log.info("Listening on loopback only: loopback origins are allowed, and a request for any other host name is "
					+ "refused (DNS rebinding)");
		}
	}

	/** Throws a 403 {@link RelayFailure} when the request's host or origin is not allowed. */
	public void check(HttpHeaders headers) {
		if (loopbackOnly) {
			String host = headers.getFirst(HttpHeaders.HOST);
			if (host != null && !LOOPBACK_HOSTS.contains(hostName(host))) {
				throw RelayFailures.hostNotAllowed();
			}
		}
		String origin = headers.getOrigin();
		if (origin != null && !allows(origin)) {
			throw RelayFailures.originNotAllowed(origin);
		}
	}

	/** Whether a browser page from {@code origin} may call the relay. */
	public boolean allows(String origin) {
		if (allowAny || allowed.contains(normalize(origin))) {
			return true;
		}
		return loopbackOnly && isLoopbackOrigin(origin);
	}

	private static boolean isLoopbackOrigin(String origin) {
		try {
			URI uri = new URI(origin);
			String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
			return (scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null
					&& LOOPBACK_HOSTS.contains(uri.getHost().toLowerCase(Locale.ROOT))
					&& (uri.getRawPath() == null || uri.getRawPath().isEmpty());
		}
		catch (Exception malformed) {
			return false;
		}
	}

	/** The name in a Host header, without its port; IPv6 literals keep their brackets. */
	private static String hostName(String host) {
		String lower = host.trim().toLowerCase(Locale.ROOT);
		if (lower.startsWith("[")) {
			int close = lower.indexOf(']');
			return close < 0 ? lower : lower.substring(0, close + 1);
		}
		int colon = lower.indexOf(':');
		return colon < 0 ? lower : lower.substring(0, colon);
	}

	private static boolean listensOnLoopback(String address) {
		if (address == null || address.isBlank()) {
			return false;
		}
		try {
			return InetAddress.getByName(address).isLoopbackAddress();
		}
		catch (UnknownHostException ex) {
			return false;
		}
	}

	private static String normalize(String origin) {
		String lower = origin.toLowerCase(Locale.ROOT);
		return lower.endsWith("/") ? lower.substring(0, lower.length() - 1) : lower;
	}

}
