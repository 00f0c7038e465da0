package dev.mcprelay.proxy;

import java.util.LinkedHashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.RelayPropertiesValidator;

/**
 * The configured upstream servers by id. Built once at start-up, after the whole configuration has been validated:
 * an invalid configuration stops the application with every problem listed.
 */
@Component
public class UpstreamRegistry {

	private static final Logger log = LoggerFactory.getLogger(UpstreamRegistry.class);

	private final Map<String, Upstream> upstreams;

	public UpstreamRegistry(RelayProperties properties) {
		RelayPropertiesValidator.requireValid(properties);
		Map<String, Upstream> byId = new LinkedHashMap<>();
		properties.servers().forEach((id, server) -> byId.put(id, new Upstream(id, server)));
		this.upstreams = Map.copyOf(byId);
		if (upstreams.isEmpty()) {
			log.warn("No MCP servers are configured: add them under mcp-relay.servers; every request will get 404");
		}
		upstreams.values().forEach(upstream -> log.info("Relaying /mcp/{} to {}", upstream.id(), upstream.properties().redactedUrl()));
	}

	/** The upstream with this id, or a {@link RelayFailure} (404) naming the servers that exist. */
	public Upstream require(String id) {
		Upstream upstream = upstreams.get(id);
		if (upstream == null) {
			throw RelayFailures.unknownServer(id, upstreams.keySet());
		}
		return upstream;
	}

}
