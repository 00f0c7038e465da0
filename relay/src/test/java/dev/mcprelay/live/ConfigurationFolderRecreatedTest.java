package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The configuration folder deleted and created again (an operator's {@code rm -r} and copy, a volume remounted): the
 * watcher says at WARN that it cannot watch it, watches it again once it is back, says so, and reloads what it holds.
 */
class ConfigurationFolderRecreatedTest {

	@TempDir
	static Path root;

	static SdkMcpUpstream upstream;

	static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		upstream = new SdkMcpUpstream();
		Path folder = Files.createDirectory(root.resolve("config"));
		Files.writeString(folder.resolve("application.yml"), config("alpha"));
		relay = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.run("--spring.config.additional-location=file:" + folder.resolve("application.yml"));
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
	void aFolderDeletedAndCreatedAgainIsWatchedAgainAndWhatItHoldsIsReloaded() throws Exception {
		Path folder = root.resolve("config");
		int mark = CapturedLogs.all().size();
		Files.delete(folder.resolve("application.yml"));
		Files.delete(folder);
		Awaitility.await("the watcher says it lost the folder").atMost(Duration.ofSeconds(20))
			.until(() -> CapturedLogs.since(mark).stream()
				.anyMatch(line -> line.startsWith("WARN") && line.contains("cannot be watched now")));
		double applied = applied();

		Files.createDirectory(folder);
		Files.writeString(folder.resolve("application.yml"), config("alpha", "beta"));

		Awaitility.await("the folder watched again and its configuration applied").atMost(Duration.ofSeconds(20))
			.until(() -> applied() > applied);
		assertThat(CapturedLogs.since(mark)).anyMatch(line -> line.startsWith("WARN") && line.contains("watched again"));
		RawHttp http = new RawHttp(TwoRelaysOverRedis.port(relay));
		assertThat(http.send(http.post("beta", McpSession.initialize(1))).statusCode()).isEqualTo(200);
	}

	private static double applied() {
		return relay.getBean(MeterRegistry.class).get(ConfigurationReloader.RELOADS)
			.tag("outcome", ReloadOutcome.APPLIED).counter().count();
	}

	static String config(String... servers) {
		StringBuilder yaml = new StringBuilder("server:\n  port: 0\n  address: 127.0.0.1\n"
				+ "mcp-relay:\n  security:\n    mode: none\n  servers:\n");
		for (String server : servers) {
			yaml.append("    ").append(server).append(":\n      url: ").append(upstream.url("/stateless")).append('\n');
		}
		return yaml.toString();
	}

}
