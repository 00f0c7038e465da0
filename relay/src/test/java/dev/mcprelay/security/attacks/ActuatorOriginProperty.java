package dev.mcprelay.security.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.mcprelay.security.attacks.ActuatorPathAttacks.Spelling;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;

/**
 * The property every security mode must hold on the actuator's paths against generated spellings
 * ({@link ActuatorPathAttacks}), sent byte for byte on a socket: whatever spelling the actuator answers for a caller
 * that may read it (a 2xx), it refuses to a browser page of an origin not allowed ({@code Origin}), and, the relay
 * listening on loopback only, to a request naming another host ({@code Host}): 403 with a JSON-RPC error and its
 * reason. The path as written must be answered, so the property cannot hold by answering nothing.
 */
abstract class ActuatorOriginProperty {

	static final String FOREIGN_ORIGIN = "https://evil.example";

	@LocalServerPort
	int port;

	/** The port the actuator is served on: the relay's own unless a management port is configured. */
	int actuatorPort() {
		return port;
	}

	/** {@code management.endpoints.web.base-path} of the mode under test. */
	String basePath() {
		return "/actuator";
	}

	/** What a caller that may read the actuator sends in the mode under test. */
	abstract Map<String, String> credential();

	@Test
	void theActuatorAnswersItsPathAsWrittenAndRefusesAForeignOriginThere() {
		String path = ActuatorPathAttacks.of(basePath(), "health").get(0).path();
		assertThat(send(path, Map.of()).status()).as("GET " + path).isEqualTo(200);
		assertRefused(send(path, Map.of("Origin", FOREIGN_ORIGIN)), "GET " + path + " from " + FOREIGN_ORIGIN,
				"origin_not_allowed");
	}

	@TestFactory
	Stream<DynamicTest> noSpellingOfAnActuatorPathTheActuatorAnswersServesAForeignOriginOrHost() {
		List<DynamicTest> tests = new ArrayList<>();
		for (String endpoint : List.of("health", "info", "prometheus")) {
			for (Spelling spelling : ActuatorPathAttacks.of(basePath(), endpoint)) {
				tests.add(DynamicTest.dynamicTest(endpoint + ": " + spelling, () -> attack(spelling)));
			}
		}
		return tests.stream();
	}

	private void attack(Spelling spelling) {
		String what = "GET " + spelling.path();
		RawSocketHttp.Response answered = send(spelling.path(), Map.of());
		RawSocketHttp.Response foreignOrigin = send(spelling.path(), Map.of("Origin", FOREIGN_ORIGIN));
		RawSocketHttp.Response foreignHost = foreignHost(spelling.path());
		if (answered.status() / 100 == 2) {
			assertRefused(foreignOrigin, what + " (answered " + answered.status() + ") from " + FOREIGN_ORIGIN,
					"origin_not_allowed");
			assertRefused(foreignHost, what + " (answered " + answered.status() + ") for Host evil.example", null);
		}
		else {
			assertThat(foreignOrigin.status() / 100).as(what + " from " + FOREIGN_ORIGIN).isNotEqualTo(2);
			assertThat(foreignHost.status() / 100).as(what + " for Host evil.example").isNotEqualTo(2);
		}
	}

	private static void assertRefused(RawSocketHttp.Response response, String what, String reason) {
		assertThat(response.status()).as(what + ": " + response.body()).isEqualTo(403);
		String said = RawHttp.json(response.body()).at("/error/data/reason").asText();
		if (reason != null) {
			assertThat(said).as(what + ": the reason").isEqualTo(reason);
		}
		else {
			assertThat(said).as(what + ": the reason").isNotEmpty();
		}
	}

	private RawSocketHttp.Response send(String path, Map<String, String> extra) {
		Map<String, String> headers = new LinkedHashMap<>(credential());
		headers.putAll(extra);
		return RawSocketHttp.send(actuatorPort(), "GET", path, headers, null);
	}

	/** GET {@code path} naming {@code evil.example} in {@code Host}, as a DNS-rebinding page's request does. */
	private RawSocketHttp.Response foreignHost(String path) {
		StringBuilder request = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\nHost: evil.example:")
			.append(actuatorPort()).append("\r\n");
		credential().forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
		request.append("Connection: close\r\n\r\n");
		List<RawSocketHttp.Response> responses = RawSocketHttp.exchange(actuatorPort(), request.toString());
		assertThat(responses).as("an answer to GET " + path + " for Host evil.example").isNotEmpty();
		return responses.get(0);
	}

}
