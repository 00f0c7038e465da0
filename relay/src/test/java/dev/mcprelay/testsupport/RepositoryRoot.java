package dev.mcprelay.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The repository's top folder, where the README, {@code interop/}, {@code deploy/} and the {@code Dockerfile} are:
 * tests run in the {@code relay} module's folder, one below it.
 */
public final class RepositoryRoot {

	private static final Path ROOT = find();

	private RepositoryRoot() {
	}

	/** {@code relative} under the repository's top folder. */
	public static Path resolve(String relative) {
		return ROOT.resolve(relative);
	}

	private static Path find() {
		Path at = Path.of("").toAbsolutePath();
		for (Path dir = at; dir != null; dir = dir.getParent()) {
			if (Files.isDirectory(dir.resolve(".mvn")) && Files.isRegularFile(dir.resolve("README.md"))) {
				return dir;
			}
		}
		throw new IllegalStateException("No repository folder (with .mvn/ and README.md) above " + at);
	}

}
