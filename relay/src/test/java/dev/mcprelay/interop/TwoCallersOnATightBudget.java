package dev.mcprelay.interop;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.RawHttp;

/**
 * A relay whose body budget is small enough for a test to fill one caller's share (6 MB in all, 3 MB per caller, 1 MB
 * per body), in {@code api-key} mode with two callers, {@code alice} and {@code bob}, each opening every server: what
 * the bridge keeps for alice beyond her requests fills her share, and bob is served all the same.
 */
final class TwoCallersOnATightBudget {

	private static final String ALICE_KEY = "alice-key-0123456789";

	private static final String BOB_KEY = "bob-key-0123456789";

	private TwoCallersOnATightBudget() {
	}

	/** Starts the relay with server {@code id} at {@code url}, and {@code settings} of its own ({@code --name=value}). */
	static ConfigurableApplicationContext start(String id, String url, String... settings) {
		List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--mcp-relay.servers." + id + ".url=" + url, "--mcp-relay.servers." + id + ".max-buffered-body=1MB",
				"--mcp-relay.max-buffered-bodies=6MB", "--mcp-relay.max-buffered-bodies-per-caller=3MB",
				"--mcp-relay.security.mode=api-key", "--mcp-relay.security.api-keys[0].client=alice",
				"--mcp-relay.security.api-keys[0].key-sha256=" + Sha256.hex(ALICE_KEY),
				"--mcp-relay.security.api-keys[0].servers[0]=*", "--mcp-relay.security.api-keys[1].client=bob",
				"--mcp-relay.security.api-keys[1].key-sha256=" + Sha256.hex(BOB_KEY),
				"--mcp-relay.security.api-keys[1].servers[0]=*"));
		args.addAll(List.of(settings));
		return new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.run(args.toArray(String[]::new));
	}

	/** Alice's client of {@code relay}. */
	static RawHttp alice(ConfigurableApplicationContext relay) {
		return new RawHttp(port(relay), "X-Api-Key", ALICE_KEY);
	}

	/** Bob's client of {@code relay}. */
	static RawHttp bob(ConfigurableApplicationContext relay) {
		return new RawHttp(port(relay), "X-Api-Key", BOB_KEY);
	}

	private static int port(ConfigurableApplicationContext relay) {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
