package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * A Kubernetes Secret mounted as a config tree ({@code spring.config.import=configtree:/path/}, a file per key) is
 * watched as the configuration files are: when the kubelet swaps its {@code ..data} link to a rotated secret, the
 * relay reloads, and the next request upstream carries the new value its placeholder resolves to.
 */
class ConfigTreeSecretReloadTest {

	@TempDir
	static Path root;

	static SdkMcpUpstream upstream;

	static KubeletVolume secret;

	static MountedRelay relay;

	@BeforeAll
	static void start() throws Exception {
		upstream = new SdkMcpUpstream();
		secret = new KubeletVolume(Files.createDirectory(root.resolve("secret")));
		secret.write(Map.of("upstream-token", "first-token"));
		relay = MountedRelay.start(Files.createDirectory(root.resolve("config")), "server:\n  port: 0\n"
				+ "  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n    alpha:\n      url: "
				+ upstream.url("/mcp") + "\n      headers:\n        - { name: X-Upstream-Token, value: \"${upstream-token}\" }\n",
				"--spring.config.import=configtree:" + secret.folder() + "/");
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (upstream != null) {
			upstream.close();
		}
	}

	@Test
	void aSecretMountedAsAConfigTreeRotatedByTheKubeletIsReloaded() throws Exception {
		McpSession session = McpSession.open(relay.http(), "alpha");
		assertThat(tokensSeen()).as("the secret as mounted at start-up").containsOnly("first-token");
		String running = relay.checksum();

		relay.awaitOutcome(() -> secret.write(Map.of("upstream-token", "rotated-token")), ReloadOutcome.APPLIED);
		upstream.clearSeen();

		assertThat(relay.checksum()).isNotEqualTo(running);
		assertThat(session.post(RawHttp.toolsCall(2, "echo")).statusCode()).isEqualTo(200);
		assertThat(tokensSeen()).as("the next request carries the rotated secret").containsOnly("rotated-token");
	}

	private static List<String> tokensSeen() {
		return upstream.seen().stream().map(seen -> seen.headers().getFirst("X-Upstream-Token")).toList();
	}

}
