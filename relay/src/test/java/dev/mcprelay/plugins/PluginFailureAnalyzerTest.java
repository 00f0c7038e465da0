package dev.mcprelay.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Which plugin stopped start-up: the analyzer names the jar of a class that failed when Spring made it, and says
 * nothing of failures that are not a plugin's.
 */
class PluginFailureAnalyzerTest {

	@TempDir
	Path plugins;

	@AfterEach
	void forgetLoaderPath() {
		System.clearProperty("loader.path");
	}

	@Test
	void aPluginClassThatFailsWhenSpringMakesItIsNamedWithItsJar() throws IOException {
		jar(plugins.resolve("tenant-policy-2.0.jar"), "com.example.tenant.TenantToolCalls\n");
		System.setProperty("loader.path", plugins.toString());
		BeanCreationException failure = new BeanCreationException("com.example.tenant.TenantToolCalls",
				"Failed to instantiate [com.example.tenant.TenantToolCalls]",
				new IllegalStateException("no tenant directory configured"));

		FailureAnalysis analysis = new PluginFailureAnalyzer().analyze(failure);

		assertThat(analysis.getDescription()).isEqualTo("Plugin tenant-policy-2.0.jar could not be loaded: "
				+ "com.example.tenant.TenantToolCalls failed: IllegalStateException: no tenant directory configured");
		assertThat(analysis.getAction()).contains("tenant-policy-2.0.jar").contains("/app/plugins");
	}

	@Test
	void aCheckedPluginIsNamedAsTheCheckSaid() {
		FailureAnalysis analysis = new PluginFailureAnalyzer()
			.analyze(new IllegalStateException("wrapped", new InvalidPluginException("x.jar", "it registers no class")));

		assertThat(analysis.getDescription()).isEqualTo("Plugin x.jar could not be loaded: it registers no class");
	}

	@Test
	void aFailureThatNamesNoPluginClassIsLeftToTheOtherAnalyzers() throws IOException {
		jar(plugins.resolve("tenant-policy-2.0.jar"), "com.example.tenant.TenantToolCalls\n");
		System.setProperty("loader.path", plugins.toString());

		assertThat(new PluginFailureAnalyzer().analyze(new IllegalStateException("port 8080 is in use"))).isNull();
	}

	private static void jar(Path path, String imports) throws IOException {
		try (OutputStream out = Files.newOutputStream(path); ZipOutputStream zip = new ZipOutputStream(out)) {
			zip.putNextEntry(new ZipEntry(PluginJars.IMPORTS));
			zip.write(imports.getBytes(StandardCharsets.UTF_8));
			zip.closeEntry();
		}
	}

}
