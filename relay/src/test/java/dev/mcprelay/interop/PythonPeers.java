package dev.mcprelay.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.mcprelay.testsupport.DebianTool;
import dev.mcprelay.testsupport.InstallLock;
import dev.mcprelay.testsupport.RepositoryRoot;

/**
 * The real MCP peers from the official MCP Python SDK that the interop suite runs, from {@code interop/python/}: a
 * virtual environment ({@code interop/python/.venv}) made with the machine's {@code python3} (installed from Debian,
 * with its {@code venv} module, when missing) and the pinned packages of {@code requirements.txt} installed into it
 * when they are missing or older than that file, from the package index pip is configured with. Every failure says
 * what to do.
 */
final class PythonPeers {

	static final Path DIRECTORY = RepositoryRoot.resolve("interop/python");

	private static final Path VENV = DIRECTORY.resolve(".venv");

	/** Written once the requirements are installed: the venv is as new as it. */
	private static final Path INSTALLED = VENV.resolve("installed-requirements.txt");

	private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);

	private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(120);

	private PythonPeers() {
	}

	/** Makes the venv and installs {@code requirements.txt} into it unless that is done already. */
	static void install() throws IOException, InterruptedException {
		try (InstallLock lock = InstallLock.acquire("python-venv")) {
			installHeld();
		}
	}

	private static void installHeld() throws IOException, InterruptedException {
		Path requirements = DIRECTORY.resolve("requirements.txt");
		if (Files.exists(INSTALLED)
				&& Files.getLastModifiedTime(INSTALLED).compareTo(Files.getLastModifiedTime(requirements)) >= 0) {
			return;
		}
		Path python = new DebianTool("python3", "python3-venv", "The interop suite runs the MCP Python SDK's client; "
				+ "install Python 3.10 or newer with its venv module (Debian/Ubuntu: apt-get install python3-venv).")
			.locateOrInstall();
		PeerCommand venv = run(List.of(python.toString(), "-m", "venv", "--clear", VENV.toString()), INSTALL_TIMEOUT);
		if (venv.exitCode() != 0) {
			throw new AssertionError("'python3 -m venv' failed (exit " + venv.exitCode() + "); Debian/Ubuntu need "
					+ "python3-venv:\n" + venv.stderr());
		}
		// one retry, a short timeout: a machine that reaches no public index but has another configured gets there
		// at once instead of after pip's backoff
		PeerCommand pip = run(List.of(VENV.resolve("bin/pip").toString(), "install", "--disable-pip-version-check",
				"--retries", "1", "--timeout", "30", "-r", requirements.toString()), INSTALL_TIMEOUT);
		if (pip.exitCode() != 0) {
			throw new AssertionError("'pip install -r interop/python/requirements.txt' failed (exit " + pip.exitCode()
					+ "); is a Python package index reachable?\n" + pip.stderr());
		}
		Files.copy(requirements, INSTALLED, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
	}

	/** Runs the Python SDK client {@code script} with {@code args}; returns the last line it printed on stdout. */
	static String runClient(String script, String... args) throws IOException {
		List<String> command = new ArrayList<>(List.of(VENV.resolve("bin/python").toString(), script));
		command.addAll(List.of(args));
		PeerCommand result = run(command, CLIENT_TIMEOUT);
		if (result.exitCode() != 0) {
			throw new AssertionError("The Python SDK client " + script + " failed against " + args[0] + " (exit "
					+ result.exitCode() + "):\n" + result.stderr());
		}
		List<String> lines = result.stdout().strip().lines().toList();
		return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
	}

	private static PeerCommand run(List<String> command, Duration timeout) throws IOException {
		return PeerCommand.run(DIRECTORY, command, java.util.Map.of(), timeout);
	}

}
