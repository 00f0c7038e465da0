package dev.mcprelay.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.RepositoryRoot;

/**
 * {@code docs/writing-an-interceptor.md} shows the example plugin as it is: every Java, XML and imports block is the
 * file of {@code examples/tenant-policy} it stands for (the suite builds and unit-tests that project, and
 * {@code PluginLoadingIT} / {@code AotCacheTrainingIT} load it), and its commands name the modules and jar this
 * build makes.
 */
public class WritingAnInterceptorGuideTest {

	private static final Path EXAMPLE = RepositoryRoot.resolve("examples/tenant-policy");

	@Test
	void everyCodeBlockIsTheExamplesOwnFile() throws IOException {
		String guide = guide();
		List<String> java = blocks(guide, "java");
		assertThat(java).as("the guide's Java blocks").hasSizeGreaterThanOrEqualTo(3);
		for (String block : java) {
			Matcher type = Pattern.compile("(?:class|interface) (\\w+)").matcher(block);
			assertThat(type.find()).as(block).isTrue();
			Path file = find(type.group(1) + ".java");
			assertThat(block).as("the guide's %s is %s", type.group(1), file).isEqualTo(Files.readString(file));
		}
		assertThat(blocks(guide, "xml")).containsExactly(Files.readString(EXAMPLE.resolve("pom.xml")));
		assertThat(blocks(guide, "text")).contains(Files.readString(EXAMPLE.resolve(
				"src/main/resources/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")));
	}

	@Test
	void theCommandsNameWhatThisBuildMakes() throws IOException {
		String commands = String.join("\n", blocks(guide(), "bash"));

		assertThat(commands).contains("./mvnw -B -q install -DskipTests -pl mcp-relay-api,mcp-relay-test -am")
			.contains("-v \"$PWD/plugins:/app/plugins:ro\"")
			.contains("java -Dloader.path=plugins -jar relay/target/mcp-relay-0.1.0-SNAPSHOT.jar");
		assertThat(Files.readString(RepositoryRoot.resolve("Dockerfile"))).contains("ENV LOADER_PATH=/app/plugins");
		assertThat(Files.readString(RepositoryRoot.resolve("relay/pom.xml"))).contains("<version>0.1.0-SNAPSHOT</version>");
	}

	/** The first line of the guide's start-up log block: what a relay with the example plugin logs. */
	public static String loggedPluginLine() throws IOException {
		return blocks(guide(), "text").stream()
			.filter(block -> block.startsWith("Plugin tenant-policy"))
			.findFirst()
			.orElseThrow()
			.lines()
			.findFirst()
			.orElseThrow();
	}

	private static String guide() throws IOException {
		return Files.readString(RepositoryRoot.resolve("docs/writing-an-interceptor.md"));
	}

	private static List<String> blocks(String markdown, String language) {
		List<String> blocks = new ArrayList<>();
		Matcher block = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(markdown);
		while (block.find()) {
			blocks.add(block.group(1));
		}
		return blocks;
	}

	private static Path find(String fileName) throws IOException {
		try (var files = Files.walk(EXAMPLE.resolve("src"))) {
			return files.filter(file -> file.getFileName().toString().equals(fileName)).findFirst().orElseThrow(
					() -> new AssertionError("no " + fileName + " in " + EXAMPLE));
		}
	}

}
