package dev.mcprelay.security;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.springframework.stereotype.Component;

import dev.mcprelay.config.ApiKeyProperties;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;

/**
 * The servers each API key opens ({@code mcp-relay.security.api-keys[n].servers}, by the key's client id), a part of
 * each configuration snapshot, so that {@link ServerAccess} decides on the request's snapshot: a reload that takes a
 * server from a key's {@code servers} leaves the key without it from the next request (and ends the key's open streams
 * on it, {@link WithdrawnAccess}), and a server added again later under that id is not opened by a key that no longer
 * names it. Which keys exist is the snapshot's too ({@link CallerAuthentication}).
 */
@Component
class KeyServers implements SnapshotPart<Map<String, Set<String>>> {

	@Override
	public String partName() {
		return "api-key servers";
	}

	@Override
	public Map<String, Set<String>> compile(SnapshotCompilation compilation) {
		Map<String, Set<String>> byClient = new LinkedHashMap<>();
		for (ApiKeyProperties key : compilation.properties().security().apiKeys()) {
			if (key.client() != null) {
				byClient.put(key.client(), Set.copyOf(key.servers()));
			}
		}
		return java.util.Collections.unmodifiableMap(byClient);
	}

	/** Whether the key of {@code client} opens server {@code id} under {@code snapshot} ({@code *} opens every one). */
	boolean opens(ConfigurationSnapshot snapshot, String client, String id) {
		Set<String> servers = of(snapshot).getOrDefault(client, Set.of());
		return servers.contains("*") || servers.contains(id);
	}

}
