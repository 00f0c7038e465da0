package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * A Kubernetes Secret mounted as a config tree ({@code spring.config.import=configtree:/path/}, a file per key) is
 * watched as the configuration files are: when the kubelet swaps its {@code ..data} link to a rotated secret, the
 * relay reloads, and the next request upstream carries the new value its placeholder resolves to.
 */
class ConfigTreeSecretReloadTest {

	static SdkMcpUpstream upstream;

	static KubeletVolume secret;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(ConfigTreeSecretReloadTest::config)
		.peer(() -> upstream = new SdkMcpUpstream())
		.peer(ConfigTreeSecretReloadTest::mountSecret)
		.argument(() -> "--spring.config.import=configtree:" + secret.folder() + "/");

	@Test
	void aSecretMountedAsAConfigTreeRotatedByTheKubeletIsReloaded() throws Exception {
		McpSession session = McpSession.open(live.http(), "alpha");
		assertThat(tokensSeen()).as("the secret as mounted at start-up").containsOnly("first-token");
		String running = live.relay().checksum();

		live.relay().awaitOutcome(() -> secret.write(Map.of("upstream-token", "rotated-token")), ReloadOutcome.APPLIED);
		upstream.clearSeen();

		assertThat(live.relay().checksum()).isNotEqualTo(running);
		assertThat(session.post(RawHttp.toolsCall(2, "echo")).statusCode()).isEqualTo(200);
		assertThat(tokensSeen()).as("the next request carries the rotated secret").containsOnly("rotated-token");
	}

	/** The Secret as the kubelet mounts it, with its first token; the folder deleted after the class. */
	private static AutoCloseable mountSecret() throws Exception {
		Path folder = Files.createTempDirectory("mounted-secret");
		secret = new KubeletVolume(folder);
		secret.write(Map.of("upstream-token", "first-token"));
		return () -> LiveReloadFixture.delete(folder);
	}

	private static List<String> tokensSeen() {
		return upstream.seen().stream().map(seen -> seen.headers().getFirst("X-Upstream-Token")).toList();
	}

	private static String config() {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ "    alpha:\n      url: " + upstream.url("/mcp")
				+ "\n      headers:\n        - { name: X-Upstream-Token, value: \"${upstream-token}\" }\n";
	}

}
