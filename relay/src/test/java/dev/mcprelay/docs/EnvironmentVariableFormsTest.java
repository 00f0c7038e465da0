package dev.mcprelay.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.InvalidRelayConfigurationException;
import dev.mcprelay.config.RelayEnvironmentVariables;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.testsupport.RepositoryRoot;

/**
 * Every environment-variable form the manual shows configures the relay as the manual says, proven by starting the
 * relay with those variables and nothing else:
 * <ul>
 * <li>an {@code env} block ({@code NAME=value} per line) means "the configuration of the {@code yaml} block before
 * it": the relay started with the block's variables (and those the blocks' {@code ${VAR}}s name) must bind the same
 * {@code mcp-relay} tree as the YAML, and have the same value for each of its other keys;</li>
 * <li>a form the manual shows refused (in an example of start-up's problem list) must stop start-up, naming it;</li>
 * <li>any other variable of the relay's or Spring Boot's form named anywhere in the manual or {@code deploy/}'s READMEs
 * must be one of those: a form no test started the relay with cannot be in the manual.</li>
 * </ul>
 */
class EnvironmentVariableFormsTest {

	private static final Path ROOT = RepositoryRoot.resolve(".").normalize();

	/** A variable of the relay's or Spring Boot's form: what a reader would set to configure either. */
	private static final Pattern FORM = Pattern
		.compile("\\b(?:MCPRELAY|MCP_RELAY|SPRING|MANAGEMENT|SERVER|LOGGING)_[A-Z0-9_]*[A-Z0-9]\\b");

	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?}");

	/** A line of start-up's problem list that refuses an environment variable. */
	private static final Pattern REFUSED = Pattern
		.compile("environment variable ((?:MCPRELAY|MCP_RELAY)_[A-Z0-9_]+): sets no property");

	@Test
	void everyEnvBlockConfiguresWhatTheYamlBeforeItDoes() throws Exception {
		List<String> failures = new ArrayList<>();
		int started = 0;
		for (DocsBlocksTest.Block env : DocsBlocksTest.blocks("env")) {
			DocsBlocksTest.Block yaml = yamlBefore(env);
			if (yaml == null) {
				failures.add(env + ": no yaml block before it to say what it configures");
				continue;
			}
			Map<String, Object> variables = variables(env.text());
			Map<String, Object> dummies = dummies(env.text() + yaml.text());
			Map<String, Object> all = new LinkedHashMap<>(dummies);
			all.putAll(variables);
			boolean modeSet = variables.keySet().stream().anyMatch(name -> name.contains("SECURITY_MODE"));
			if (!modeSet) {
				all.put("MCPRELAY_SECURITY_MODE", "none");
			}
			started++;
			try (ConfigurableApplicationContext relay = start(all)) {
				StandardEnvironment fromYaml = yamlEnvironment(yaml.text(), dummies, modeSet);
				RelayProperties expected = Binder.get(fromYaml).bindOrCreate("mcp-relay", RelayProperties.class);
				RelayProperties actual = relay.getBean(RelayProperties.class);
				if (!expected.equals(actual)) {
					failures.add(env + ": binds\n  " + actual + "\nwhere " + yaml + " binds\n  " + expected);
				}
				for (String key : yamlKeys(yaml.text())) {
					if (!key.startsWith("mcp-relay.")) {
						String want = fromYaml.getProperty(key);
						String got = relay.getEnvironment().getProperty(key);
						if (!java.util.Objects.equals(want, got)) {
							failures.add(env + ": " + key + " is " + got + ", where " + yaml + " sets " + want);
						}
					}
				}
			}
			catch (RuntimeException failed) {
				failures.add(env + ": the relay does not start with these variables: " + causes(failed));
			}
		}
		assertThat(failures).as("env blocks of the manual").isEmpty();
		assertThat(started).as("env blocks started").isGreaterThanOrEqualTo(2);
	}

	@Test
	void everyFormShownRefusedStopsStartUpNamingIt() throws Exception {
		Set<String> refused = refusedForms();
		assertThat(refused).as("forms the manual shows refused").contains("MCP_RELAY_SERVERS_GITHUB_URL");
		for (String variable : refused) {
			Map<String, Object> variables = new LinkedHashMap<>();
			variables.put("MCPRELAY_SECURITY_MODE", "none");
			variables.put(variable, "https://api.githubcopilot.com/mcp/");
			Throwable failure = null;
			try (ConfigurableApplicationContext relay = start(variables)) {
				// started: the failure below says so
			}
			catch (RuntimeException expected) {
				failure = expected;
			}
			assertThat(problems(failure)).as("start-up with %s", variable)
				.anySatisfy(problem -> assertThat(problem.toString()).startsWith("environment variable " + variable + ": ")
					.contains("Write it as MCPRELAY_"));
		}
	}

	@Test
	void everyFormTheManualNamesIsOneATestStartsTheRelayWith() throws Exception {
		Set<String> shown = new TreeSet<>();
		for (DocsBlocksTest.Block env : DocsBlocksTest.blocks("env")) {
			shown.addAll(variables(env.text()).keySet());
		}
		shown.addAll(refusedForms());
		List<Path> pages = new ArrayList<>(DocsBlocksTest.pages());
		try (Stream<Path> deploy = Files.walk(ROOT.resolve("deploy"))) {
			deploy.filter(file -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		List<String> unproven = new ArrayList<>();
		for (Path page : pages) {
			Matcher form = FORM.matcher(Files.readString(page));
			while (form.find()) {
				boolean relays = form.group().startsWith("MCP");
				if (relays && !RelayEnvironmentVariables.namesAProperty(form.group())) {
					continue; // not the relay's (Kubernetes' MCP_RELAY_SERVICE_HOST): the manual says so where it names it
				}
				if (!shown.contains(form.group())) {
					unproven.add(ROOT.relativize(page) + ": " + form.group());
				}
			}
		}
		assertThat(unproven).as("environment variables the manual names that no env block (or refused example) "
				+ "starts the relay with").isEmpty();
	}

	/** The relay, started with {@code variables} as its whole environment (besides the JVM's system properties). */
	private static ConfigurableApplicationContext start(Map<String, Object> variables) {
		StandardEnvironment environment = new org.springframework.boot.web.context.reactive.StandardReactiveWebEnvironment();
		environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
							variables));
		return new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class).environment(environment)
			.web(WebApplicationType.REACTIVE)
			.run("--server.port=0", "--server.address=127.0.0.1");
	}

	private static StandardEnvironment yamlEnvironment(String yaml, Map<String, Object> variables, boolean modeSet)
			throws IOException {
		StandardEnvironment environment = new StandardEnvironment();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load("docs",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))) {
			environment.getPropertySources().addFirst(source);
		}
		Map<String, Object> rest = new LinkedHashMap<>(variables);
		if (!modeSet) {
			rest.putIfAbsent("mcp-relay.security.mode", "none");
		}
		environment.getPropertySources().addLast(new MapPropertySource("variables", rest));
		return environment;
	}

	private static Set<String> yamlKeys(String yaml) throws IOException {
		Set<String> keys = new TreeSet<>();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load("docs",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))) {
			if (source instanceof EnumerablePropertySource<?> enumerable) {
				keys.addAll(List.of(enumerable.getPropertyNames()));
			}
		}
		return keys;
	}

	/** The yaml block nearest before {@code env} on its page. */
	private static DocsBlocksTest.Block yamlBefore(DocsBlocksTest.Block env) throws IOException {
		DocsBlocksTest.Block nearest = null;
		for (DocsBlocksTest.Block yaml : DocsBlocksTest.blocks("yaml", "yml")) {
			if (yaml.page().equals(env.page()) && yaml.line() < env.line()) {
				nearest = yaml;
			}
		}
		return nearest;
	}

	/** {@code NAME=value} lines, as a shell or Kubernetes hands them over: the value as written. */
	private static Map<String, Object> variables(String block) {
		Map<String, Object> variables = new LinkedHashMap<>();
		for (String line : block.split("\n")) {
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			int equals = line.indexOf('=');
			variables.put(line.substring(0, equals), line.substring(equals + 1));
		}
		return variables;
	}

	/** A value for each {@code ${VAR}} the text names: 64 hex digits for a {@code *_SHA256}. */
	private static Map<String, Object> dummies(String text) {
		Map<String, Object> dummies = new LinkedHashMap<>();
		Matcher placeholder = PLACEHOLDER.matcher(text);
		while (placeholder.find()) {
			String name = placeholder.group(1);
			dummies.put(name, name.endsWith("SHA256") ? "ab".repeat(32) : "dummy-" + name.toLowerCase());
		}
		return dummies;
	}

	/** The variables the manual's examples of start-up's problem list refuse. */
	private static Set<String> refusedForms() throws IOException {
		Set<String> refused = new TreeSet<>();
		for (DocsBlocksTest.Block block : DocsBlocksTest.blocks("")) {
			Matcher line = REFUSED.matcher(block.text());
			while (line.find()) {
				refused.add(line.group(1));
			}
		}
		return refused;
	}

	private static List<ConfigurationProblem> problems(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidRelayConfigurationException invalid) {
				return invalid.problems();
			}
		}
		throw new AssertionError("start-up did not fail with the configuration's problems: " + failure);
	}

	private static String causes(Throwable failure) {
		StringBuilder text = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			text.append(cause.getMessage()).append("; ");
		}
		return text.toString();
	}

}
