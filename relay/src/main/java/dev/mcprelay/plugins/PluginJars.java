package dev.mcprelay.plugins;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The plugin jars the relay was started with: every jar in the folders (or named directly) of Spring Boot's
 * {@code loader.path} (the system property, else the {@code LOADER_PATH} environment variable; comma-separated), and
 * the classes each registers through its
 * {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}.
 *
 * <p>Read once at start-up, from the jars' own bytes, before Spring loads any of their classes: a jar that cannot be
 * read or registers nothing is reported by name ({@link PluginCheck}).
 */
public final class PluginJars {

	/** Where a plugin lists the classes it registers, as Spring Boot reads it. */
	public static final String IMPORTS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

	private PluginJars() {
	}

	/** One plugin jar and what it registers (empty when it lists nothing), or why it could not be read. */
	public record Plugin(Path jar, List<String> classes, String unreadable) {

		public String name() {
			return jar.getFileName().toString();
		}

	}

	/** The plugin jars of {@code loaderPath} ({@code null} or blank: none), in the order given, folders' jars by name. */
	public static List<Plugin> of(String loaderPath) {
		List<Plugin> plugins = new ArrayList<>();
		if (loaderPath == null || loaderPath.isBlank()) {
			return plugins;
		}
		for (String entry : loaderPath.split(",")) {
			String trimmed = entry.trim();
			if (trimmed.isEmpty()) {
				continue;
			}
			Path path = Path.of(trimmed.endsWith("/*") ? trimmed.substring(0, trimmed.length() - 2) : trimmed);
			if (Files.isDirectory(path)) {
				try (Stream<Path> files = Files.list(path)) {
					files.filter(file -> file.getFileName().toString().endsWith(".jar")).sorted().forEach(jar -> plugins.add(read(jar)));
				}
				catch (IOException ex) {
					throw new InvalidPluginException(path.toString(), "the plugin folder cannot be listed: " + ex.getMessage());
				}
			}
			else if (trimmed.endsWith(".jar")) {
				plugins.add(read(path));
			}
		}
		return plugins;
	}

	/** The plugin jars named by this JVM's {@code loader.path} or {@code LOADER_PATH}. */
	public static List<Plugin> ofThisProcess(Map<String, String> environment) {
		String path = System.getProperty("loader.path");
		return of(path != null ? path : environment.get("LOADER_PATH"));
	}

	private static Plugin read(Path jar) {
		try (ZipFile zip = new ZipFile(jar.toFile())) {
			ZipEntry imports = zip.getEntry(IMPORTS);
			if (imports == null) {
				return new Plugin(jar, List.of(), null);
			}
			try (InputStream in = zip.getInputStream(imports)) {
				List<String> classes = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
					.map(line -> line.replaceFirst("#.*", "").trim())
					.filter(line -> !line.isEmpty())
					.toList();
				return new Plugin(jar, classes, null);
			}
		}
		catch (IOException ex) {
			return new Plugin(jar, List.of(), "it is not a readable jar (" + ex.getMessage() + ")");
		}
	}

}
