package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.core.env.Profiles;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.InvalidRelayConfigurationException;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.RelayPropertiesValidator;
import dev.mcprelay.config.UnknownRelayProperties;
import dev.mcprelay.demo.DemoMcpServer;

/**
 * The configured upstream servers by id, and the one {@code /mcp} itself serves. Built once at start-up, after the
 * whole configuration has been validated: an invalid configuration stops the application with every problem listed,
 * including a key under {@code mcp-relay} that is no property ({@link UnknownRelayProperties}) and a server id that is
 * also the first segment of a path the relay serves itself (the server would be unreachable at
 * {@code /{server}/mcp}).
 */
@Component
public class UpstreamRegistry {

	private static final Logger log = LoggerFactory.getLogger(UpstreamRegistry.class);

	private final Map<String, Upstream> upstreams;

	private final Upstream defaultUpstream;

	public UpstreamRegistry(RelayProperties properties, Environment environment) {
		List<ConfigurationProblem> problems = new ArrayList<>(UnknownRelayProperties.find(environment));
		problems.addAll(RelayPropertiesValidator.validate(properties));
		Set<String> reserved = reservedSegments(environment);
		properties.servers().keySet().stream().filter(reserved::contains).sorted().forEach(id -> problems.add(
				new ConfigurationProblem("mcp-relay.servers." + id, "the id '" + id
						+ "' is a path of the relay itself (ids it cannot take: " + String.join(", ", reserved) + ")",
						"Give the server another id")));
		if (!problems.isEmpty()) {
			throw new InvalidRelayConfigurationException(problems);
		}
		Map<String, Upstream> byId = new LinkedHashMap<>();
		properties.servers().forEach((id, server) -> byId.put(id, new Upstream(id, server)));
		this.upstreams = Map.copyOf(byId);
		String defaultId = properties.defaultServer() != null ? properties.defaultServer()
				: upstreams.size() == 1 ? upstreams.keySet().iterator().next() : null;
		this.defaultUpstream = defaultId == null ? null : upstreams.get(defaultId);
		if (upstreams.isEmpty()) {
			log.warn("No MCP servers are configured: add them under mcp-relay.servers; every request will get 404");
		}
		upstreams.values()
			.forEach(upstream -> log.info("Relaying /mcp/{} and /{}/mcp to {}", upstream.id(), upstream.id(),
					upstream.properties().redactedUrl()));
		if (defaultUpstream != null) {
			log.info("Relaying /mcp to '{}'", defaultUpstream.id());
		}
	}

	/**
	 * The configured server an MCP path segment names ({@code ""}: the default server), or {@code null} when it names
	 * none; for the front door, which decides before the relay resolves anything.
	 */
	public Upstream find(String segment) {
		return segment.isEmpty() ? defaultUpstream : upstreams.get(segment);
	}

	/** Every configured upstream. */
	public java.util.Collection<Upstream> all() {
		return upstreams.values();
	}

	/** The upstream with this id, or a {@link RelayFailure} (404) that names none of the servers that exist. */
	public Upstream require(String id) {
		Upstream upstream = upstreams.get(id);
		if (upstream == null) {
			throw RelayFailures.unknownServer(id);
		}
		return upstream;
	}

	/** The upstream {@code /mcp} serves, or a {@link RelayFailure} (404) saying how to pick one. */
	public Upstream requireDefault() {
		if (defaultUpstream == null) {
			throw RelayFailures.noDefaultServer();
		}
		return defaultUpstream;
	}

	/** The first path segments the relay serves itself: the actuator's, RFC 9728 metadata's, the demo's. */
	private static Set<String> reservedSegments(Environment environment) {
		Set<String> reserved = new TreeSet<>();
		reserved.add(firstSegment(environment.getProperty("management.endpoints.web.base-path", "/actuator")));
		reserved.add(".well-known");
		if (environment.acceptsProfiles(Profiles.of("demo"))) {
			reserved.add(DemoMcpServer.SEGMENT);
		}
		reserved.remove("");
		return reserved;
	}

	private static String firstSegment(String path) {
		String trimmed = path.startsWith("/") ? path.substring(1) : path;
		int slash = trimmed.indexOf('/');
		return slash < 0 ? trimmed : trimmed.substring(0, slash);
	}

}
