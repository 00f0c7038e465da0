package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.InvalidRelayConfigurationException;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.RelayConfigurationCheck;
import dev.mcprelay.config.ShutdownTimingValidator;
import dev.mcprelay.config.UnknownRelayProperties;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;

/**
 * The configured upstream servers by id. Built once at start-up, after the
 * whole configuration has been validated: an invalid configuration stops the application with every problem listed
 * ({@link RelayConfigurationCheck}), including a key under {@code mcp-relay} that is no property
 * ({@link UnknownRelayProperties}), a grace period that shutdown would not wait for ({@link ShutdownTimingValidator})
 * and a server id that is
 * also the first segment of a path the relay serves itself (the server would be unreachable at
 * {@code /{server}/mcp}).
 */
@Component
public class UpstreamRegistry {

	private static final Logger log = LoggerFactory.getLogger(UpstreamRegistry.class);

	private final Map<String, Upstream> upstreams;

	public UpstreamRegistry(RelayProperties properties, Environment environment, McpRouting routing) {
		List<ConfigurationProblem> problems = new ArrayList<>(RelayConfigurationCheck.problems(properties, environment));
		problems.addAll(routing.configurationProblems());
		Set<String> reserved = routing.reservedSegments();
		properties.servers().keySet().stream().filter(reserved::contains).sorted().forEach(id -> problems.add(
				new ConfigurationProblem("mcp-relay.servers." + id, "the id '" + id
						+ "' is a path of the relay itself (ids it cannot take: " + String.join(", ", reserved) + ")",
						"Give the server another id")));
		if (!problems.isEmpty()) {
			throw new InvalidRelayConfigurationException(problems);
		}
		Map<String, Upstream> byId = new LinkedHashMap<>();
		properties.servers().forEach((id, server) -> byId.put(id, new Upstream(id, server)));
		// in configuration order (the start-up log lists them so), not Map.copyOf's, which changes from one JVM to the next
		this.upstreams = Collections.unmodifiableMap(byId);
		String defaultId = routing.resolve("/mcp").server();
		if (upstreams.isEmpty()) {
			log.warn("No MCP servers are configured: add them under mcp-relay.servers; every request will get 404");
		}
		upstreams.values()
			.forEach(upstream -> log.info("Relaying /mcp/{} and /{}/mcp to {}", upstream.id(), upstream.id(),
					upstream.properties().redactedUrl()));
		if (defaultId != null) {
			log.info("Relaying /mcp to '{}'", defaultId);
		}
	}

	/** The configured server with this id, or {@code null}. */
	public Upstream find(String id) {
		return id == null ? null : upstreams.get(id);
	}

	/** Every configured upstream. */
	public java.util.Collection<Upstream> all() {
		return upstreams.values();
	}

	/**
	 * The upstream an endpoint route names, or the {@link RelayFailure} (404) that says why there is none: an unknown
	 * server (naming none of the servers that exist), or {@code /mcp} without a default server (saying how to pick one).
	 */
	public Upstream require(McpRoute route) {
		return switch (route.kind()) {
			case SERVER -> upstreams.get(route.target());
			case UNKNOWN_SERVER -> throw RelayFailures.unknownServer(route.target());
			case NO_DEFAULT_SERVER -> throw RelayFailures.noDefaultServer();
			default -> throw new IllegalArgumentException("Not an MCP endpoint route: " + route.kind());
		};
	}

}
