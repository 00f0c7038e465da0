package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.interop.ConformanceSuite.Scenario;

/**
 * The official MCP conformance suite (issue 46) run against the server it expects ({@code interop/conformance-server.mjs},
 * the TypeScript SDK v2) directly and through the relay, scenario by scenario. For each protocol revision the suite
 * requires scenarios of (2025-11-25, 2026-07-28) the suite speaks that revision, and:
 * <ul>
 * <li><b>direct</b>: against the fixture serving that revision only; a scenario that fails here is the fixture's gap
 * (listed in {@link #FIXTURE_GAPS}), not the relay's;</li>
 * <li><b>relayed</b>: through the relay to the same fixture (a same-version pair, relayed untouched);</li>
 * <li><b>bridged</b>: through the relay to the fixture serving the other revision only (2025 client and 2026-only
 * server; 2026 client and 2025-only server), the version bridge.</li>
 * </ul>
 * Each relayed or bridged scenario must report the same checks with the same statuses as the direct run, but for the
 * differences {@link #RELAY_DIFFERENCES} names, each with why (an entry no longer differing fails too, so the list
 * stays true). The six runs go in two waves ({@link #runAll}), each to a fixture of its own; a scenario that differs in a
 * way not listed runs once more on both sides and both runs count ({@link #runAgainWhereTheyDisagree}); what each printed and wrote is in {@code target/conformance/<run>/}.
 */
class ConformanceSuiteInteropTest {

	private static final String V2025 = "2025-11-25";

	private static final String V2026 = "2026-07-28";

	/**
	 * Scenarios the fixture fails directly, by {@code revision:scenario}, with the reason: the tasks extension
	 * (io.modelcontextprotocol/tasks), which the suite runs without scoring it and the TypeScript SDK v2 server 2.4.0
	 * does not implement (its own conformance baseline lists the same nine).
	 */
	private static final Map<String, String> FIXTURE_GAPS = tasksExtension("2026-07-28:tasks-capability-negotiation",
			"2026-07-28:tasks-dispatch-and-envelope", "2026-07-28:tasks-lifecycle", "2026-07-28:tasks-mrtr-composition",
			"2026-07-28:tasks-mrtr-input", "2026-07-28:tasks-request-headers", "2026-07-28:tasks-request-state-removal",
			"2026-07-28:tasks-required-task-error", "2026-07-28:tasks-wire-fields");

	/**
	 * The checks that fail through the relay and pass directly, by {@code run:scenario:check}, with why: what the bridge
	 * does not carry (docs/servers-and-transports.md, "What is not bridged yet"). Through the relay to a server of the
	 * client's own version (relayed-*) nothing differs.
	 */
	private static final Map<String, String> RELAY_DIFFERENCES = Map.ofEntries(
			Map.entry("bridged-2025-to-2026:logging-set-level:logging-set-level",
					"logging/setLevel is relayed, and 2026-07-28 has none (a log level goes in each request's _meta): -32601"),
			Map.entry("bridged-2025-to-2026:tools-call-with-logging:tools-call-with-logging",
					"the scenario sets the log level first: -32601, as above"),
			Map.entry("bridged-2025-to-2026:resources-subscribe:resources-subscribe",
					"resources/subscribe is not bridged (the server's subscribe capability is left out): -32601"),
			Map.entry("bridged-2025-to-2026:resources-unsubscribe:resources-unsubscribe",
					"resources/unsubscribe is not bridged, as resources/subscribe"),
			// the Mcp-Param-* headers a client sends are checked against the arguments the tool declares them for, on
			// every path (review 43g N-3), so a mismatch and broken Base64 are refused through the bridge too; a
			// declared header the client leaves out is not required by the relay (nor Mcp-Method or Mcp-Name are): a
			// 2026-07-28 server refuses that itself, and a 2025 server never sees these headers
			Map.entry("bridged-2026-to-2025:http-custom-header-server-validation:sep-2243-server-validate-param-match",
					"an Mcp-Param-* header left out for an argument the call has is not refused (the relay does not "
							+ "require the mirrored headers; a 2025 server never sees them)"),
			Map.entry("bridged-2026-to-2025:http-custom-header-server-validation:sep-2243-server-reject-param-mismatch",
					"the error code of that same case (ServerRejectsMissingCustomHeader): as above"),
			Map.entry("bridged-2026-to-2025:http-header-validation:sep-2243-server-reject-invalid-headers",
					"Mcp-Method and Mcp-Name are dropped, not checked against the body"),
			Map.entry("bridged-2026-to-2025:input-required-result-basic-elicitation:sep-2322-elicitation-incomplete",
					"a 2025 server's request has no key: inputRequests are keyed by the relay, not as the tool names them"),
			Map.entry("bridged-2026-to-2025:input-required-result-multiple-input-requests:sep-2322-multiple-inputs-incomplete",
					"one input request per round: the relay ends the round at the server's first request"),
			Map.entry("bridged-2026-to-2025:server-stateless:sep-2575-http-server-method-not-found-404",
					"the server's -32601 is handed on with its HTTP 200, not the 404 2026-07-28 asks"),
			Map.entry("bridged-2026-to-2025:server-stateless:sep-2575-server-rejects-undeclared-capability",
					"a 2025 server has no -32021: the SDK's answer to a capability the client lacks is an error result"),
			Map.entry("bridged-2026-to-2025:server-stateless:sep-2575-missing-capability-http-400",
					"as above: there is no -32021 whose HTTP status to check"),
			Map.entry("bridged-2026-to-2025:server-stateless:sep-2575-server-no-log-without-loglevel",
					"the session's log messages pass to a request that set no _meta log level"));

	private static final Path OUTPUT = Path.of("target", "conformance").toAbsolutePath();

	/**
	 * The runs, by name: the revision the suite speaks, the era of the fixture it reaches, and the relay's server for
	 * that fixture ({@code null}: the fixture directly).
	 */
	private static final Map<String, Run> RUNS = new LinkedHashMap<>();
	static {
		RUNS.put("direct-2025", new Run(V2025, "2025", null));
		RUNS.put("direct-2026", new Run(V2026, "2026", null));
		RUNS.put("relayed-2025", new Run(V2025, "2025", "relayed-2025"));
		RUNS.put("relayed-2026", new Run(V2026, "2026", "relayed-2026"));
		RUNS.put("bridged-2025-to-2026", new Run(V2025, "2026", "bridged-2025-to-2026"));
		RUNS.put("bridged-2026-to-2025", new Run(V2026, "2025", "bridged-2026-to-2025"));
	}

	/** Each run's own fixture, by run: a fixture announces list changes to every listener it has. */
	private static final Map<String, NodePeers.NodeServer> FIXTURES = new LinkedHashMap<>();

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		ConformanceSuite.requireInstalled();
		List<String> properties = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1"));
		for (Map.Entry<String, Run> run : RUNS.entrySet()) {
			NodePeers.NodeServer fixture = NodePeers.startServer("conformance-server.mjs",
					Map.of("ERA", run.getValue().fixtureEra()));
			FIXTURES.put(run.getKey(), fixture);
			if (run.getValue().relayServer() != null) {
				String server = "mcp-relay.servers." + run.getValue().relayServer();
				properties.add(server + ".url=" + fixture.url());
				properties.add(server + ".protocol-versions=" + (run.getValue().fixtureEra().equals("2025") ? V2025 : V2026));
			}
		}
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		for (NodePeers.NodeServer fixture : FIXTURES.values()) {
			fixture.close();
		}
	}

	@Test
	void theSuiteSeesTheSameThroughTheRelayAndTheBridgeAsDirectly() throws Exception {
		Map<String, Map<String, Scenario>> results = runAll();
		Map<String, Map<String, Scenario>> again = runAgainWhereTheyDisagree(results);

		Map<String, String> gaps = new TreeMap<>();
		for (String revision : List.of(V2025, V2026)) {
			String direct = "direct-" + revision.substring(0, 4);
			results.get(direct).values().stream().map(scenario -> failingInBoth(again, direct, scenario))
				.filter(scenario -> !scenario.passed())
				.forEach(scenario -> gaps.put(revision + ":" + scenario.name(), scenario.failures().toString()));
		}
		Map<String, String> differences = new TreeMap<>();
		for (Map.Entry<String, Run> run : RUNS.entrySet()) {
			if (run.getValue().relayServer() == null) {
				continue;
			}
			String directName = "direct-" + run.getValue().revision().substring(0, 4);
			Map<String, Scenario> direct = results.get(directName);
			Map<String, Scenario> seen = results.get(run.getKey());
			assertThat(seen.keySet()).as("%s ran the scenarios the direct run ran", run.getKey())
				.containsExactlyElementsOf(direct.keySet());
			for (Scenario first : seen.values()) {
				Scenario directly = direct.get(first.name());
				failingInEither(again, run.getKey(), first)
					.differencesFrom(failingInEither(again, directName, directly),
							failingInBoth(again, directName, directly))
					.forEach((check, how) -> differences.put(run.getKey() + ":" + first.name() + ":" + check, how));
			}
		}
		String report = report(results, again, gaps, differences);
		Files.writeString(OUTPUT.resolve("summary.txt"), report);
		System.out.println(report);

		assertThat(gaps.keySet()).as("the fixture's gaps (scenarios failing directly):\n%s", report)
			.containsExactlyInAnyOrderElementsOf(FIXTURE_GAPS.keySet());
		assertThat(differences.keySet()).as("the checks that fail through the relay and not directly, or the other way:\n%s",
				report)
			.containsExactlyInAnyOrderElementsOf(RELAY_DIFFERENCES.keySet());
	}

	/**
	 * One run of the suite: the revision it speaks, the era its fixture serves ({@code ERA}), and the relay's server in
	 * front of that fixture ({@code null} for the fixture directly).
	 */
	private record Run(String revision, String fixtureEra, String relayServer) {
	}

	/**
	 * The runs in two waves, each against its own fixture (they spend their time waiting: the suite paces itself): the
	 * 2025 ones and the direct 2026 one, then the 2026 ones through the relay. The suite gives some answers a second
	 * ({@code server-stateless} reads a listen's acknowledgement within 1 s): the relay has by then answered a wave's
	 * requests (its code is compiled, not interpreted, as in service), and four runs are not waiting with them.
	 */
	private static Map<String, Map<String, Scenario>> runAll() {
		ExecutorService pool = Executors.newFixedThreadPool(RUNS.size());
		try {
			Map<String, Map<String, Scenario>> results = new LinkedHashMap<>();
			List<String> second = List.of("relayed-2026", "bridged-2026-to-2025");
			List<String> first = RUNS.keySet().stream().filter(name -> !second.contains(name)).toList();
			for (List<String> wave : List.of(first, second)) {
				Map<String, CompletableFuture<Map<String, Scenario>>> running = new LinkedHashMap<>();
				for (String name : wave) {
					Run run = RUNS.get(name);
					String url = run.relayServer() == null ? FIXTURES.get(name).url() : relayUrl(run.relayServer());
					running.put(name, CompletableFuture.supplyAsync(() -> {
						try {
							return ConformanceSuite.run(url, run.revision(), OUTPUT.resolve(name));
						}
						catch (java.io.IOException ex) {
							throw new java.io.UncheckedIOException(ex);
						}
					}, pool));
				}
				running.forEach((name, result) -> results.put(name, result.join()));
			}
			Map<String, Map<String, Scenario>> inOrder = new LinkedHashMap<>();
			RUNS.keySet().forEach(name -> inOrder.put(name, results.get(name)));
			return inOrder;
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * Runs once more, on both sides, each scenario whose verdicts the comparison would count (a check failing through
	 * the relay and not directly, or the other way; a scenario failing directly that is no known gap), and answers the
	 * second runs by run and scenario; the first runs stay in {@code results} and count as much. The suite reads some
	 * answers within a second ({@code server-stateless} waits 1 s for a listen's frames), and the machine runs other
	 * builds beside it: such a check failed once directly and once through the relay in 2026-11-28's runs. So a check
	 * that failed through the relay in either run is the relay's unless it failed directly in either run too (then it is
	 * timing-sensitive for the fixture itself); a check that failed directly is a gap only when it failed in both runs.
	 * A flaky relay difference is not forgiven by a quiet second run, and the summary names every scenario run again.
	 */
	private static Map<String, Map<String, Scenario>> runAgainWhereTheyDisagree(Map<String, Map<String, Scenario>> results)
			throws Exception {
		Map<String, Map<String, Scenario>> again = new LinkedHashMap<>();
		for (Map.Entry<String, Run> run : RUNS.entrySet()) {
			if (run.getValue().relayServer() == null) {
				continue;
			}
			String directName = "direct-" + run.getValue().revision().substring(0, 4);
			Map<String, Scenario> direct = results.get(directName);
			for (Scenario scenario : results.get(run.getKey()).values()) {
				Scenario directly = direct.get(scenario.name());
				boolean unexplained = scenario.differencesFrom(directly).keySet().stream()
					.anyMatch(check -> !RELAY_DIFFERENCES.containsKey(run.getKey() + ":" + scenario.name() + ":" + check))
						|| (!directly.passed() && !FIXTURE_GAPS.containsKey(run.getValue().revision() + ":" + scenario.name()));
				if (!unexplained) {
					continue;
				}
				System.out.println("conformance: running " + scenario.name() + " again, directly and " + run.getKey());
				Map<String, Scenario> directAgain = again.computeIfAbsent(directName, any -> new TreeMap<>());
				if (!directAgain.containsKey(scenario.name())) {
					directAgain.put(scenario.name(), ConformanceSuite.runAgain(FIXTURES.get(directName).url(),
							run.getValue().revision(), scenario.name(),
							OUTPUT.resolve(directName + "-again-" + scenario.name())));
				}
				again.computeIfAbsent(run.getKey(), any -> new TreeMap<>()).put(scenario.name(),
						ConformanceSuite.runAgain(relayUrl(run.getValue().relayServer()), run.getValue().revision(),
								scenario.name(), OUTPUT.resolve(run.getKey() + "-again-" + scenario.name())));
			}
		}
		return again;
	}

	/** {@code first}, a scenario of the run {@code run}, failing each check that failed in it or in its second run. */
	private static Scenario failingInEither(Map<String, Map<String, Scenario>> again, String run, Scenario first) {
		Scenario second = again.getOrDefault(run, Map.of()).get(first.name());
		return second == null ? first : first.failingInEither(second);
	}

	/** {@code first}, a scenario of the run {@code run}, failing only the checks that failed in it and its second run. */
	private static Scenario failingInBoth(Map<String, Map<String, Scenario>> again, String run, Scenario first) {
		Scenario second = again.getOrDefault(run, Map.of()).get(first.name());
		return second == null ? first : first.failingInBoth(second);
	}

	private static String report(Map<String, Map<String, Scenario>> results, Map<String, Map<String, Scenario>> again,
			Map<String, String> gaps, Map<String, String> differences) {
		List<String> lines = new ArrayList<>();
		results.forEach((run, scenarios) -> lines.add(String.format("%-22s %3d scenarios, %3d passed", run,
				scenarios.size(), scenarios.values().stream().filter(Scenario::passed).count())));
		lines.add("run again (the first run differed in a way not listed; both runs count):");
		again.forEach((run, scenarios) -> scenarios.forEach((name, second) -> lines.add("  " + run + ":" + name
				+ " first " + (results.get(run).get(name).passed() ? "passed" : "failed " + results.get(run).get(name)
					.failures().keySet()) + ", again " + (second.passed() ? "passed" : "failed " + second.failures().keySet()))));
		lines.add("fixture gaps (failing directly):");
		gaps.forEach((scenario, why) -> lines.add("  " + scenario + " " + ConformanceSuite.brief(why)));
		lines.add("checks failing through the relay and not directly, or the other way (run:scenario:check):");
		differences.forEach((check, how) -> lines.add("  " + check + " " + ConformanceSuite.brief(how)
				+ (RELAY_DIFFERENCES.containsKey(check) ? "" : "   <- not listed")));
		return String.join("\n", lines);
	}

	private static Map<String, String> tasksExtension(String... scenarios) {
		Map<String, String> gaps = new TreeMap<>();
		for (String scenario : scenarios) {
			gaps.put(scenario, "the tasks extension: not implemented by the TypeScript SDK v2 server 2.4.0; not scored");
		}
		return gaps;
	}

	private static String relayUrl(String server) {
		return "http://127.0.0.1:" + ((WebServerApplicationContext) relay).getWebServer().getPort() + "/mcp/" + server;
	}

}
