package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.VirtualServerProperties;

/**
 * The configured virtual servers ({@code mcp-relay.virtual-servers}), resolved once at start-up from the validated
 * configuration.
 */
@Component
public class VirtualServers {

	private final Map<String, VirtualServer> byId;

	public VirtualServers(RelayProperties properties) {
		Map<String, VirtualServer> resolved = new LinkedHashMap<>();
		properties.virtualServers().forEach((id, virtual) -> resolved.put(id, resolve(id, virtual, properties)));
		this.byId = Map.copyOf(resolved);
	}

	private static VirtualServer resolve(String id, VirtualServerProperties virtual, RelayProperties properties) {
		List<String> members = virtual.members().contains("*") ? new ArrayList<>(properties.servers().keySet())
				: virtual.members();
		Map<String, String> prefixes = new LinkedHashMap<>();
		members.forEach(member -> prefixes.put(member, virtual.prefixOf(member)));
		return new VirtualServer(id, members, prefixes, virtual.toolSearch());
	}

	/** Whether any virtual server offers its tools through search. */
	boolean anySearches() {
		return byId.values().stream().anyMatch(server -> server.toolSearch().enabled());
	}

	/** The virtual server {@code id}, or {@code null}. */
	public VirtualServer find(String id) {
		return id == null ? null : byId.get(id);
	}

}
