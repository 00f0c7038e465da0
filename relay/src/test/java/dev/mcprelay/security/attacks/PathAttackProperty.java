package dev.mcprelay.security.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.security.attacks.PathAttacks.PathAttack;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Mono;

/**
 * The property every security mode must hold against generated paths ({@link PathAttacks}), for POST, GET and
 * DELETE, sent byte for byte on a socket: whatever reaches an upstream reached exactly the server the path canonically
 * names, and only for a caller that may use it; a path that names no server canonically reaches none; every refusal
 * is a JSON-RPC error with a reason; and every relayed request has its access-log line naming that server. A canonical
 * path for a server the caller may use must reach it, so the property cannot hold by refusing everything.
 */
abstract class PathAttackProperty {

	static final ScriptedUpstream ACME = recording();

	static final ScriptedUpstream OTHER = recording();

	static final List<String> SERVERS = List.of("acme", "other");

	static final String DEFAULT_SERVER = "other";

	static final String BODY = "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
			+ "\"arguments\":{}}}";

	private static int nextId = 1;

	/** A caller of the mode under test: the headers it sends and the servers it may use. */
	record AttackingCaller(String name, Map<String, String> credential, Set<String> mayUse) {
	}

	@LocalServerPort
	int port;

	/** The two servers, the default one, and their recording upstreams; each mode adds its front door. */
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.acme.url", () -> ACME.url("/mcp"));
		registry.add("mcp-relay.servers.other.url", () -> OTHER.url("/mcp"));
		registry.add("mcp-relay.default-server", () -> DEFAULT_SERVER);
	}

	/** The callers to attack with. */
	abstract List<AttackingCaller> callers();

	@BeforeEach
	void forgetWhatWasSeen() {
		ACME.clear();
		OTHER.clear();
	}

	@TestFactory
	Stream<DynamicTest> noPathReachesAnUpstreamItDoesNotCanonicallyNameOrThatTheCallerMayNotUse() {
		List<DynamicTest> tests = new ArrayList<>();
		for (AttackingCaller caller : callers()) {
			for (PathAttack attack : PathAttacks.of(SERVERS, DEFAULT_SERVER)) {
				tests.add(DynamicTest.dynamicTest(caller.name() + ": " + attack, () -> {
					for (String method : List.of("POST", "GET", "DELETE")) {
						attack(caller, attack, method);
					}
				}));
			}
		}
		return tests.stream();
	}

	private void attack(AttackingCaller caller, PathAttack attack, String method) {
		String what = caller.name() + " " + method + " " + attack;
		int acmeBefore = ACME.seen().size();
		int otherBefore = OTHER.seen().size();
		int logMark = CapturedLogs.all().size();
		Map<String, String> headers = new java.util.LinkedHashMap<>(caller.credential());
		headers.put("Accept", RawHttp.ACCEPT_BOTH);
		String body = null;
		if (method.equals("POST")) {
			headers.put("Content-Type", "application/json");
			body = BODY.formatted(nextId++);
		}

		RawSocketHttp.Response response = RawSocketHttp.send(port, method, attack.path(), headers, body);

		int acmeHits = ACME.seen().size() - acmeBefore;
		int otherHits = OTHER.seen().size() - otherBefore;
		assertThat(acmeHits + otherHits).as(what + ": at most one upstream exchange").isLessThanOrEqualTo(1);
		String reached = acmeHits > 0 ? "acme" : otherHits > 0 ? "other" : null;
		if (reached != null) {
			assertThat(reached).as(what + ": reached the server the path canonically names").isEqualTo(attack.target());
			assertThat(caller.mayUse()).as(what + ": reached a server the caller may use").contains(reached);
			Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(CapturedLogs.since(logMark))
				.as(what + ": the access log names the server it reached")
				.anyMatch(line -> line.contains("mcp.relay.access") && line.contains("server=" + reached + " ")
						&& line.contains("http_method=" + method)));
		}
		else if (attack.target() != null && caller.mayUse().contains(attack.target())) {
			assertThat(reached).as(what + ": a canonical path of a server the caller may use is relayed (status "
					+ response.status() + ": " + response.body() + ")").isEqualTo(attack.target());
		}
		if (response.status() >= 300) {
			JsonNode error = RawHttp.json(response.body());
			assertThat(error.path("jsonrpc").asText()).as(what + ": a JSON-RPC error, got " + response.status() + " "
					+ response.body()).isEqualTo("2.0");
			assertThat(error.at("/error/data/reason").asText()).as(what + ": with a reason").isNotBlank();
		}
	}

	private static ScriptedUpstream recording() {
		ScriptedUpstream upstream = new ScriptedUpstream();
		upstream.script((request, response) -> response.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
		return upstream;
	}

}
