package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.VirtualServerProperties;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;

/**
 * The configured virtual servers ({@code mcp-relay.virtual-servers}), a part of each configuration snapshot: resolved
 * against that snapshot's servers, so {@code members: ["*"]} is every server of the snapshot a request runs on (a
 * server a reload removed is no member of the next request's virtual servers, one it added is), and a named member is
 * one of them.
 */
@Component
public class VirtualServers implements SnapshotPart<Map<String, VirtualServer>> {

	@Override
	public String partName() {
		return "virtual servers";
	}

	@Override
	public Map<String, VirtualServer> compile(SnapshotCompilation compilation) {
		return resolve(compilation.properties());
	}

	/** Every virtual server of {@code properties}, resolved against their servers, by id in configuration order. */
	public static Map<String, VirtualServer> resolve(RelayProperties properties) {
		Map<String, VirtualServer> resolved = new LinkedHashMap<>();
		properties.virtualServers().forEach((id, virtual) -> resolved.put(id, resolve(id, virtual, properties)));
		return java.util.Collections.unmodifiableMap(resolved);
	}

	private static VirtualServer resolve(String id, VirtualServerProperties virtual, RelayProperties properties) {
		List<String> members = virtual.members().contains("*") ? new ArrayList<>(properties.servers().keySet())
				: virtual.members().stream().filter(properties.servers()::containsKey).toList();
		Map<String, String> prefixes = new LinkedHashMap<>();
		members.forEach(member -> prefixes.put(member, virtual.prefixOf(member)));
		return new VirtualServer(id, members, prefixes, virtual.toolSearch());
	}

	/** Whether any virtual server of {@code properties} offers its tools through search. */
	static boolean anySearches(RelayProperties properties) {
		return properties.virtualServers().values().stream().anyMatch(server -> server.toolSearch().enabled());
	}

	/** The virtual server {@code id} of {@code snapshot}, or {@code null}. */
	public VirtualServer find(ConfigurationSnapshot snapshot, String id) {
		return id == null ? null : of(snapshot).get(id);
	}

}
