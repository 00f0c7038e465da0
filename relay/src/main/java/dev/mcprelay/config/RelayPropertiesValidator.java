package dev.mcprelay.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.springframework.core.env.Environment;

/**
 * Checks the whole {@code mcp-relay} tree and reports every problem at once, each named by its property path with
 * what to write instead. Values that may be secrets ({@code authorization}, header {@code value}s, URL queries)
 * are never quoted.
 */
public final class RelayPropertiesValidator {

	private static final Pattern ORIGIN = Pattern.compile("https?://[^/?#\\s]+");

	private RelayPropertiesValidator() {
	}

	/**
	 * Every problem of {@code properties}, bound from {@code environment}: the environment is where each value is
	 * read as written, for the variables it refers to ({@link UnresolvedVariables#find(RelayProperties, Environment)}).
	 */
	public static List<ConfigurationProblem> validate(RelayProperties properties, Environment environment) {
		List<ConfigurationProblem> problems = new ArrayList<>(UnresolvedVariables.find(properties, environment));
		SecurityMode mode = properties.security().mode();
		properties.servers()
			.forEach((id, server) -> ServerPropertiesValidator.validate("mcp-relay.servers." + id, id, server, mode,
					problems));
		BufferedBodiesValidator.validate(properties, environment, Runtime.getRuntime().maxMemory(), problems);
		problems.addAll(SecurityPropertiesValidator.validate(properties));
		problems.addAll(RateLimitPropertiesValidator.validate(properties));
		problems.addAll(VirtualServerPropertiesValidator.validate(properties));
		String defaultServer = properties.defaultServer();
		if (defaultServer != null && !properties.servers().containsKey(defaultServer)
				&& !properties.virtualServers().containsKey(defaultServer)) {
			problems.add(new ConfigurationProblem("mcp-relay.default-server",
					"names '" + defaultServer + "', which is not a configured server or virtual server",
					"Write the id of a server under mcp-relay.servers or mcp-relay.virtual-servers, or remove the property"));
		}
		List<String> origins = properties.allowedOrigins();
		for (int i = 0; i < origins.size(); i++) {
			String origin = origins.get(i);
			if (origin == null || !(origin.equals("*") || ORIGIN.matcher(origin).matches())) {
				problems.add(new ConfigurationProblem("mcp-relay.allowed-origins[" + i + "]",
						"'" + origin + "' is not an origin",
						"Write scheme://host[:port] with no path, e.g. https://app.example.com, or * to allow any"));
			}
		}
		ConnectionPoolProperties pool = properties.connectionPool();
		if (pool.maxConnections() < 1) {
			problems.add(new ConfigurationProblem("mcp-relay.connection-pool.max-connections",
					"must be at least 1 but is " + pool.maxConnections(), "Write a positive number, e.g. 2000"));
		}
		PositiveDurations.require("mcp-relay.connection-pool.max-idle-time", pool.maxIdleTime(), "30s", problems);
		PositiveDurations.require("mcp-relay.shutdown.stream-grace-period", properties.shutdown().streamGracePeriod(), "10s",
				problems);
		PositiveDurations.require("mcp-relay.client-connections.request-read-timeout",
				properties.clientConnections().requestReadTimeout(), "30s", problems);
		PositiveDurations.require("mcp-relay.client-connections.idle-timeout", properties.clientConnections().idleTimeout(),
				"120s", problems);
		PositiveDurations.require("mcp-relay.sessions.idle-timeout", properties.sessions().idleTimeout(), "1h", problems);
		if (properties.tracing().clientSampledTracesPerSecond() < 0) {
			problems.add(new ConfigurationProblem("mcp-relay.tracing.client-sampled-traces-per-second",
					"must be at least 0 but is " + properties.tracing().clientSampledTracesPerSecond(),
					"Write how many traces a second clients may ask to be kept, e.g. 10, or 0 for none"));
		}
		if (properties.sessions().maxBridgedSessions() < 1) {
			problems.add(new ConfigurationProblem("mcp-relay.sessions.max-bridged-sessions",
					"must be at least 1 but is " + properties.sessions().maxBridgedSessions(),
					"Write a positive number, e.g. 1000"));
		}
		validateSecret(properties.sessions().secret(), problems);
		if (properties.sessions().maxPerCaller() < 1) {
			problems.add(new ConfigurationProblem("mcp-relay.sessions.max-per-caller",
					"must be at least 1 but is " + properties.sessions().maxPerCaller(),
					"Write a positive number, e.g. 1000"));
		}
		if (properties.sessions().maxHeldBytes() == null || properties.sessions().maxHeldBytes().toBytes() < 1) {
			problems.add(new ConfigurationProblem("mcp-relay.sessions.max-held-bytes",
					"must be at least 1 byte but is " + properties.sessions().maxHeldBytes(),
					"Write a size, e.g. 4MB"));
		}
		return problems;
	}

	/** The least length of {@code mcp-relay.sessions.secret}, in bytes: what HMAC-SHA256's key should hold. */
	static final int MIN_SECRET_BYTES = 32;

	/**
	 * {@code mcp-relay.sessions.secret}, when set, resolved and at least {@value #MIN_SECRET_BYTES} bytes: a shorter one
	 * can be found offline from a single session id the relay signed, and with it any session id forged. Never quoted.
	 */
	private static void validateSecret(String secret, List<ConfigurationProblem> problems) {
		if (secret == null || secret.isBlank()) {
			return;
		}
		String path = "mcp-relay.sessions.secret";
		// an unresolved variable is already named by UnresolvedVariables: its text's length says nothing
		boolean unresolved = problems.stream().anyMatch(problem -> problem.property().equals(path));
		int bytes = secret.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
		if (!unresolved && bytes < MIN_SECRET_BYTES) {
			problems.add(new ConfigurationProblem(path, "is " + bytes + " bytes long, shorter than "
					+ MIN_SECRET_BYTES + ": a short key can be guessed offline from one session id it signed",
					"Write at least " + MIN_SECRET_BYTES + " random bytes, e.g. the output of openssl rand -base64 32"));
		}
	}

}
