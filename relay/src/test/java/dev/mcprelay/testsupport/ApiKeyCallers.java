package dev.mcprelay.testsupport;

import java.util.List;

import org.springframework.test.context.DynamicPropertyRegistry;

import dev.mcprelay.Sha256;

/**
 * Callers of a relay in {@code api-key} mode for the policy and tool-search tests: each named caller is a client with a
 * key of its own ({@link #key}) that may use every server ({@code servers: ["*"]}), so that what tells two callers'
 * answers apart is the policies, never the front door.
 */
public final class ApiKeyCallers {

	private ApiKeyCallers() {
	}

	/** Sets {@code mcp-relay.security.mode: api-key} and one key per caller, in {@code callers}' order. */
	public static void register(DynamicPropertyRegistry registry, String... callers) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		List<String> named = List.of(callers);
		for (int i = 0; i < named.size(); i++) {
			String caller = named.get(i);
			registry.add("mcp-relay.security.api-keys[" + i + "].client", () -> caller);
			registry.add("mcp-relay.security.api-keys[" + i + "].key-sha256", () -> Sha256.hex(key(caller)));
			registry.add("mcp-relay.security.api-keys[" + i + "].servers[0]", () -> "*");
		}
	}

	/** {@code caller}'s key. */
	public static String key(String caller) {
		return caller + "-key-5d7f9b1c3e5a7c9e1b3d";
	}

	/** A client of the relay on {@code port} sending {@code caller}'s key, and {@code headers} (name, value, ...). */
	public static RawHttp http(int port, String caller, String... headers) {
		String[] all = new String[headers.length + 2];
		all[0] = "X-Api-Key";
		all[1] = key(caller);
		System.arraycopy(headers, 0, all, 2, headers.length);
		return new RawHttp(port, all);
	}

}
