package dev.mcprelay.testsupport;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A program the tests need from a Debian package (Redis's {@code redis-server}, Prometheus' {@code promtool}): found on
 * the {@code PATH} or where Debian puts it, else installed with {@code apt-get} (as root, which CI and a fresh machine
 * of this project's kind are; once with {@code apt-get update} first when the package lists are missing). Where it
 * cannot be installed, the failure says what to install.
 *
 * @param program the executable's name
 * @param debianPackage the package that holds it
 * @param whatFor a sentence for the failure: what the tests need it for and how to install it elsewhere
 */
public record DebianTool(String program, String debianPackage, String whatFor) {

	/** The program's path, installing its package first when it is missing. */
	public Path locateOrInstall() throws IOException, InterruptedException {
		try (InstallLock lock = InstallLock.acquire("apt-get")) {
			Path found = locate();
			if (found != null) {
				return found;
			}
			if (!Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
				throw new AssertionError("'" + program + "' was not found. " + whatFor);
			}
			Path log = Path.of("target", program + "-install.log");
			if (run(log, "apt-get", "install", "-y", "-q", "--no-install-recommends", debianPackage) != 0) {
				// A fresh machine may have no package lists yet.
				run(log, "apt-get", "update", "-q");
				int exit = run(log, "apt-get", "install", "-y", "-q", "--no-install-recommends", debianPackage);
				if (exit != 0) {
					throw new AssertionError("'apt-get install " + debianPackage + "' failed (exit " + exit + "; see "
							+ log + "; installing needs root). " + whatFor);
				}
			}
			found = locate();
			if (found == null) {
				throw new AssertionError(debianPackage + " was installed but '" + program + "' is not on the PATH nor in "
						+ "/usr/bin, /usr/sbin, /usr/local/bin");
			}
			return found;
		}
	}

	private Path locate() {
		String path = System.getenv("PATH");
		List<String> dirs = new java.util.ArrayList<>(path == null ? List.of() : List.of(path.split(File.pathSeparator)));
		dirs.addAll(List.of("/usr/bin", "/usr/sbin", "/usr/local/bin"));
		return dirs.stream()
			.filter(dir -> !dir.isEmpty())
			.map(dir -> Path.of(dir, program))
			.filter(Files::isExecutable)
			.findFirst()
			.orElse(null);
	}

	private static int run(Path log, String... command) throws IOException, InterruptedException {
		return run(Path.of("").toAbsolutePath(), log, command);
	}

	/**
	 * Runs a package command ({@code apt-get}, {@code dpkg-deb}) in {@code directory}, non-interactively, its output
	 * appended to {@code log}; its exit status, or -1 when it did not finish within ten minutes.
	 */
	public static int run(Path directory, Path log, String... command) throws IOException, InterruptedException {
		Files.createDirectories(log.toAbsolutePath().getParent());
		ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toAbsolutePath().toFile()));
		builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
		Process process = builder.start();
		if (!process.waitFor(10, TimeUnit.MINUTES)) {
			process.destroyForcibly();
			return -1;
		}
		return process.exitValue();
	}

}
