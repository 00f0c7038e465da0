package dev.mcprelay.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mcprelay.testsupport.RepositoryRoot;

/**
 * {@code deploy/start-relay.sh}, the image's ENTRYPOINT, starts the JVM with its memory bounded by the container's
 * limit, as {@code docs/operations.md} says: the heap 60% of it, direct memory (Netty's buffers) 15% by default
 * ({@code DIRECT_MEMORY_PERCENT}), read from the memory cgroup (v2 or v1) or, without a limit, from the machine; the
 * JVM exits on an exhausted heap; an option in {@code JAVA_OPTS} comes after the script's, so it wins. The script runs
 * with a stand-in {@code java} that prints its arguments, over a cgroup tree of the test's own ({@code CGROUP_ROOT}),
 * and the option it computed is one a real JVM takes.
 */
class StartRelayScriptTest {

	private static final Path SCRIPT = RepositoryRoot.resolve("deploy/start-relay.sh");

	@TempDir
	Path dir;

	@Test
	void directMemoryIsFifteenPercentOfAVersionTwoCgroupsLimit() throws Exception {
		Path cgroup = Files.createDirectories(dir.resolve("v2"));
		Files.writeString(cgroup.resolve("memory.max"), 700L * 1024 * 1024 + "\n");

		List<String> options = start(cgroup, Map.of());

		assertThat(options).containsSubsequence("-XX:MaxRAMPercentage=60", "-XX:MaxDirectMemorySize=105m",
				"-XX:+ExitOnOutOfMemoryError", "-cp");
		assertThat(options).last().isEqualTo("--server.port=0");
		assertThat(javaAccepts("-XX:MaxDirectMemorySize=105m")).as("a real JVM takes the option as computed")
			.isEqualTo(105L * 1024 * 1024);
	}

	@Test
	void aVersionOneCgroupsLimitIsReadTooAndItsNoLimitIsTheMachines() throws Exception {
		Path cgroup = Files.createDirectories(dir.resolve("v1/memory"));
		Files.writeString(cgroup.resolve("memory.limit_in_bytes"), 512L * 1024 * 1024 + "\n");
		assertThat(start(dir.resolve("v1"), Map.of())).contains("-XX:MaxDirectMemorySize=76m");

		Files.writeString(cgroup.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
		assertThat(start(dir.resolve("v1"), Map.of())).as("unlimited: the machine's memory")
			.contains("-XX:MaxDirectMemorySize=" + machineMegabytes() * 15 / 100 + "m");
	}

	@Test
	void thePercentageIsTheOperatorsToChooseAndJavaOptsComeLastSoTheyWin() throws Exception {
		Path cgroup = Files.createDirectories(dir.resolve("v2"));
		Files.writeString(cgroup.resolve("memory.max"), 1024L * 1024 * 1024 + "\n");

		assertThat(start(cgroup, Map.of("DIRECT_MEMORY_PERCENT", "25"))).contains("-XX:MaxDirectMemorySize=256m");
		Files.writeString(cgroup.resolve("memory.max"), 100L * 1024 * 1024 + "\n");
		assertThat(start(cgroup, Map.of())).as("never below 32 MB").contains("-XX:MaxDirectMemorySize=32m");
		assertThat(start(cgroup, Map.of("JAVA_OPTS", "-XX:MaxDirectMemorySize=1g")))
			.containsSubsequence("-XX:MaxDirectMemorySize=32m", "-XX:MaxDirectMemorySize=1g", "-cp");
	}

	/** The arguments the script hands {@code java}, one an element, with {@code extra} in its environment. */
	private List<String> start(Path cgroupRoot, Map<String, String> extra) throws Exception {
		Path java = dir.resolve("java");
		if (!Files.exists(java)) {
			Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
			Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
		}
		ProcessBuilder builder = new ProcessBuilder("sh", SCRIPT.toString(), "--server.port=0").redirectErrorStream(true);
		builder.environment().put("JAVA", java.toString());
		builder.environment().put("CGROUP_ROOT", cgroupRoot.toString());
		builder.environment().remove("JAVA_OPTS");
		builder.environment().remove("DIRECT_MEMORY_PERCENT");
		builder.environment().putAll(extra);
		Process process = builder.start();
		String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(out).isZero();
		return out.lines().toList();
	}

	/** MaxDirectMemorySize as a JVM (this test's own java) reads {@code option}. */
	private static long javaAccepts(String option) throws IOException, InterruptedException {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		Process process = new ProcessBuilder(java.toString(), option, "-XX:+PrintFlagsFinal", "-version")
			.redirectErrorStream(true)
			.start();
		String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(out).isZero();
		return out.lines()
			.filter(line -> line.contains(" MaxDirectMemorySize "))
			.map(line -> Long.parseLong(line.split("=")[1].trim().split("\\s+")[0]))
			.findFirst()
			.orElseThrow();
	}

	private static long machineMegabytes() throws IOException {
		return Files.readAllLines(Path.of("/proc/meminfo"))
			.stream()
			.filter(line -> line.startsWith("MemTotal:"))
			.map(line -> Long.parseLong(line.replaceAll("\\D", "")) / 1024)
			.findFirst()
			.orElseThrow();
	}

}
