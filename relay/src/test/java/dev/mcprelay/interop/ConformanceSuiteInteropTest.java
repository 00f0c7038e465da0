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
 * stays true). The six runs go two at a time (a pair speaks to each fixture once); what each printed and wrote is in {@code target/conformance/<run>/}.
 */
class ConformanceSuiteInteropTest {

	private static final String V2025 = "2025-11-25";

	private static final String V2026 = "2026-07-28";

	/** Scenarios the fixture fails directly, by {@code revision:scenario}, with the reason. */
	private static final Map<String, String> FIXTURE_GAPS = Map.of();

	/** Checks that differ through the relay from the direct run, by {@code run:scenario:check}, with the reason. */
	private static final Map<String, String> RELAY_DIFFERENCES = Map.of();

	private static final Path OUTPUT = Path.of("target", "conformance").toAbsolutePath();

	private static NodePeers.NodeServer only2025;

	private static NodePeers.NodeServer only2026;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		ConformanceSuite.requireInstalled();
		only2025 = NodePeers.startServer("conformance-server.mjs", Map.of("ERA", "2025"));
		only2026 = NodePeers.startServer("conformance-server.mjs", Map.of("ERA", "2026"));
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1",
					"mcp-relay.servers.fixture-2025.url=" + only2025.url(),
					"mcp-relay.servers.fixture-2025.protocol-versions=" + V2025,
					"mcp-relay.servers.fixture-2026.url=" + only2026.url(),
					"mcp-relay.servers.fixture-2026.protocol-versions=" + V2026)
			.run();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		for (NodePeers.NodeServer server : new NodePeers.NodeServer[] { only2025, only2026 }) {
			if (server != null) {
				server.close();
			}
		}
	}

	@Test
	void theSuiteSeesTheSameThroughTheRelayAndTheBridgeAsDirectly() throws Exception {
		Map<String, Run> runs = new LinkedHashMap<>();
		runs.put("direct-2025", new Run(V2025, only2025.url()));
		runs.put("direct-2026", new Run(V2026, only2026.url()));
		runs.put("relayed-2025", new Run(V2025, relayUrl("fixture-2025")));
		runs.put("relayed-2026", new Run(V2026, relayUrl("fixture-2026")));
		runs.put("bridged-2025-to-2026", new Run(V2025, relayUrl("fixture-2026")));
		runs.put("bridged-2026-to-2025", new Run(V2026, relayUrl("fixture-2025")));
		Map<String, Map<String, Scenario>> results = runTwoAtATime(runs);

		Map<String, String> gaps = new TreeMap<>();
		for (String revision : List.of(V2025, V2026)) {
			results.get("direct-" + revision.substring(0, 4)).values().stream().filter(scenario -> !scenario.passed())
				.forEach(scenario -> gaps.put(revision + ":" + scenario.name(), scenario.failures().toString()));
		}
		Map<String, String> differences = new TreeMap<>();
		for (Map.Entry<String, Run> run : runs.entrySet()) {
			if (run.getKey().startsWith("direct-")) {
				continue;
			}
			Map<String, Scenario> direct = results.get("direct-" + run.getValue().revision().substring(0, 4));
			Map<String, Scenario> seen = results.get(run.getKey());
			assertThat(seen.keySet()).as("%s ran the scenarios the direct run ran", run.getKey())
				.containsExactlyElementsOf(direct.keySet());
			for (Scenario scenario : seen.values()) {
				scenario.differencesFrom(direct.get(scenario.name()))
					.forEach((check, how) -> differences.put(run.getKey() + ":" + scenario.name() + ":" + check, how));
			}
		}
		String report = report(results, gaps, differences);
		Files.writeString(OUTPUT.resolve("summary.txt"), report);
		System.out.println(report);

		assertThat(gaps.keySet()).as("the fixture's gaps (scenarios failing directly):\n%s", report)
			.containsExactlyInAnyOrderElementsOf(FIXTURE_GAPS.keySet());
		assertThat(differences.keySet()).as("the checks that differ through the relay from the direct run:\n%s", report)
			.containsExactlyInAnyOrderElementsOf(RELAY_DIFFERENCES.keySet());
	}

	/** One run of the suite: the revision it speaks and the URL it speaks to. */
	private record Run(String revision, String url) {
	}

	/**
	 * Runs the suite's runs two at a time, in the order given: each pair speaks to the two fixtures one each (a fixture
	 * announces list changes to every listener it has, so two runs of one fixture at once could see each other's).
	 */
	private static Map<String, Map<String, Scenario>> runTwoAtATime(Map<String, Run> runs) throws Exception {
		List<String> names = List.copyOf(runs.keySet());
		Map<String, Map<String, Scenario>> results = new LinkedHashMap<>();
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			for (int pair = 0; pair < names.size(); pair += 2) {
				Map<String, CompletableFuture<Map<String, Scenario>>> running = new LinkedHashMap<>();
				for (String name : names.subList(pair, Math.min(pair + 2, names.size()))) {
					Run run = runs.get(name);
					running.put(name, CompletableFuture.supplyAsync(() -> {
						try {
							return ConformanceSuite.run(run.url(), run.revision(), OUTPUT.resolve(name));
						}
						catch (java.io.IOException ex) {
							throw new java.io.UncheckedIOException(ex);
						}
					}, pool));
				}
				running.forEach((name, result) -> results.put(name, result.join()));
			}
			return results;
		}
		finally {
			pool.shutdownNow();
		}
	}

	private static String report(Map<String, Map<String, Scenario>> results, Map<String, String> gaps,
			Map<String, String> differences) {
		List<String> lines = new ArrayList<>();
		results.forEach((run, scenarios) -> lines.add(String.format("%-22s %3d scenarios, %3d passed", run,
				scenarios.size(), scenarios.values().stream().filter(Scenario::passed).count())));
		lines.add("fixture gaps (failing directly):");
		gaps.forEach((scenario, why) -> lines.add("  " + scenario + " " + ConformanceSuite.brief(why)));
		lines.add("differences through the relay (run:scenario:check direct -> relayed):");
		differences.forEach((check, how) -> lines.add("  " + check + " " + ConformanceSuite.brief(how)
				+ (RELAY_DIFFERENCES.containsKey(check) ? "" : "   <- not listed")));
		return String.join("\n", lines);
	}

	private static String relayUrl(String server) {
		return "http://127.0.0.1:" + ((WebServerApplicationContext) relay).getWebServer().getPort() + "/mcp/" + server;
	}

}
