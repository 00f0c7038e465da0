package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * A relay that cannot use its Redis says why, instead of staying unready in silence: a wrong password, or none where
 * Redis wants one, is logged at WARN with Redis's address and the property to check (never the password), and
 * readiness stays 503 until the store answers.
 */
class SharedStoreReadinessTest {

	private static final String PASSWORD = "the-right-password-7311";

	private static final String WRONG = "a-wrong-password-0042";

	@Test
	void aWrongPasswordOrNoneIsLoggedByNameAndKeepsTheReplicaUnready() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.startWithPassword(PASSWORD)) {
			int mark = CapturedLogs.all().size();
			try (ConfigurableApplicationContext relay = relay(redis.port(), WRONG)) {
				assertThat(readiness(port(relay))).as("readiness with a wrong password").isEqualTo(503);
				String line = awaitWarning(port(relay), mark, "WRONGPASS");
				assertThat(line).contains("The shared store (Redis at 127.0.0.1:" + redis.port() + ") cannot be used, so this "
						+ "replica is not ready")
					.contains("sessions: Redis refused the password (WRONGPASS")
					.contains("rate-limits: Redis refused the password")
					.contains("check spring.data.redis.password");
			}
			mark = CapturedLogs.all().size();
			try (ConfigurableApplicationContext relay = relay(redis.port(), null)) {
				assertThat(readiness(port(relay))).as("readiness without a password").isEqualTo(503);
				assertThat(awaitWarning(port(relay), mark, "NOAUTH")).contains("Redis wants a password and was given none (NOAUTH")
					.contains("set spring.data.redis.password");
			}
			try (ConfigurableApplicationContext relay = relay(redis.port(), PASSWORD)) {
				await().atMost(Duration.ofSeconds(20)).until(() -> readiness(port(relay)) == 200);
			}
			assertThat(String.join("\n", CapturedLogs.all())).as("no password in any log line")
				.doesNotContain(PASSWORD)
				.doesNotContain(WRONG);
		}
	}

	/**
	 * A Redis that hangs at start-up (SIGSTOP: its kernel accepts the connection, nothing answers) keeps the replica
	 * unready, and the connection attempt that fails after the readiness check's bound ended it is no WARN with a
	 * stack trace of 47 lines: the check already said the store gave no answer in time.
	 */
	@Test
	void aRedisThatHangsAtStartUpIsReportedOnceNotAgainWhenItsLateFailureArrives() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start()) {
			redis.freeze();
			int mark = CapturedLogs.all().size();
			// Lettuce's command timeout (60 s unless set) bounds the hung handshake: 8 s is still four times the
			// readiness check's bound (RelayStoreHealth.TIMEOUT), so the failure still arrives after the check ended
			ConfigurableApplicationContext relay = relay(redis.port(), null,
					"--logging.level.dev.mcprelay.config.DroppedErrorLogging=DEBUG", "--spring.data.redis.timeout=8s");
			try {
				assertThat(readiness(port(relay))).as("readiness while Redis hangs").isEqualTo(503);
				await().atMost(Duration.ofSeconds(20)).until(() -> warnings(mark, "no answer in time").size() > 0);
				// the connection's handshake fails after Lettuce's command timeout (8 s), after the check's bound
				await().atMost(Duration.ofSeconds(90)).until(() -> CapturedLogs.since(mark)
					.stream()
					.anyMatch(line -> line.startsWith("DEBUG dev.mcprelay.config.DroppedErrorLogging ")));
				assertThat(CapturedLogs.since(mark)).as("the late failure, not reported again")
					.noneMatch(line -> line.startsWith("WARN dev.mcprelay.config.DroppedErrorLogging ")
							|| line.startsWith("ERROR "));
			}
			finally {
				redis.thaw();
				relay.close();
			}
		}
	}

	/**
	 * The first warning that names Redis's refusal, asking for readiness (which checks the store) until there is one: on
	 * a loaded machine a check may see no answer within its bound, and the relay says so first (and again when the
	 * reason changes).
	 */
	private static String awaitWarning(int port, int mark, String refusal) {
		await().atMost(Duration.ofSeconds(20)).until(() -> readiness(port) == 503 && warnings(mark, refusal).size() > 0);
		return warnings(mark, refusal).get(0);
	}

	private static List<String> warnings(int mark, String refusal) {
		return CapturedLogs.since(mark).stream()
			.filter(line -> line.startsWith("WARN " + RelayStoreHealth.class.getName() + " ") && line.contains(refusal))
			.toList();
	}

	private static ConfigurableApplicationContext relay(int redisPort, String password, String... more) {
		List<String> args = new java.util.ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--mcp-relay.security.mode=none", "--mcp-relay.sessions.store=redis",
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
				"--mcp-relay.servers.sdk.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.rate-limits[0].limit=100", "--mcp-relay.rate-limits[0].period=1m"));
		if (password != null) {
			args.add("--spring.data.redis.password=" + password);
		}
		args.addAll(List.of(more));
		return new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class).run(args.toArray(String[]::new));
	}

	private static int readiness(int port) throws Exception {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness"))
				.timeout(Duration.ofSeconds(10))
				.build(), HttpResponse.BodyHandlers.ofString())
			.statusCode();
	}

	private static int port(ConfigurableApplicationContext relay) {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
