package dev.mcprelay.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.yaml.snakeyaml.Yaml;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.RelayPropertiesValidator;
import dev.mcprelay.config.UnknownRelayProperties;
import dev.mcprelay.testsupport.RepositoryRoot;

/**
 * Every code block of the manual that a reader would paste is exercised, so that the manual cannot drift from the
 * relay. The pages are {@code README.md}, {@code CONTRIBUTING.md} and every {@code docs/*.md}. What each kind of block
 * gets:
 * <ul>
 * <li><b>{@code yaml} / {@code yml}</b>: parsed as YAML. A block with a top-level {@code mcp-relay:} is then loaded as
 * Spring Boot loads {@code application.yml}, bound to {@link RelayProperties} and checked as the relay checks its
 * configuration at start-up ({@link UnknownRelayProperties}: no misspelt key; {@link RelayPropertiesValidator}: every
 * value valid; its {@code spring.data.redis.*}, a standalone, Sentinel or Cluster store, bound as Spring Boot binds it),
 * with each {@code ${VAR}} given a dummy value (64 hex digits for a {@code *_SHA256}). A block that sets no
 * {@code security.mode} must be valid in one of the modes ({@code none}, {@code jwt}, {@code api-key}, each with a
 * minimal front door of its own). A block marked with {@code <!-- fragment -->} on the line before it is
 * deliberately partial: it is only parsed.</li>
 * <li><b>{@code bash}, the demo session</b> (a block that calls {@code localhost:8080/mcp/demo}): run in bash, as
 * written, against a relay started with the {@code demo} profile on a free 127.0.0.1 port ({@code localhost:8080}
 * replaced by it; the {@code SID=...} the reader pastes taken from the initialize answer); every exchange must get
 * the status its comment says and the demo's answers.</li>
 * <li><b>{@code bash}, the API-key recipe</b> (a block that runs {@code openssl rand}): run in bash; the hash it
 * prints must be the SHA-256 of the key it prints.</li>
 * <li><b>{@code bash}, other commands</b>, one rule per program (a command no rule knows fails this test):
 * {@code ./mvnw}: run with its goals replaced by {@code validate} (so its {@code -pl} modules and flags are Maven's
 * own), its goals among those this build uses, a {@code -Dspring-boot.run.profiles} or {@code --spring.profiles.active}
 * profile an {@code application-<profile>.yml} of the relay; {@code bench/*.sh}: exists, is executable, and
 * {@code bash -n} accepts it; {@code docker build -t <image> .}: the {@code Dockerfile} exists; {@code docker run}: the
 * image is the one built, each {@code -e VAR} is a variable {@code deploy/application.yml} uses, each mounted folder
 * exists and its mount point is one the {@code Dockerfile} names; {@code java -jar}: the jar is the relay's artifact and
 * version; {@code mkdir}, {@code cp}: a copied {@code target/*.jar} is the example plugin's artifact and version.</li>
 * <li><b>links</b>: every relative link of those pages (outside code) names a file or folder that exists, and an
 * anchor into a page names one of its headings.</li>
 * </ul>
 * The interceptor examples ({@code java}), the virtual-server and upstream OAuth2 configurations (what they mean,
 * beyond being valid) and the PromQL blocks have tests of their own: {@link ReadmeInterceptorExampleTest},
 * {@link ReadmeServerToClientExampleTest}, {@link ReadmeVirtualServerExampleTest},
 * {@link ReadmeUpstreamOAuth2ExampleTest}, {@link WritingAnInterceptorGuideTest}, {@code MonitoringAssetsTest}.
 */
class DocsBlocksTest {

	private static final Path ROOT = RepositoryRoot.resolve(".").normalize();

	private static final Pattern FENCE = Pattern.compile("^\\s*```(\\S*)\\s*$");

	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?}");

	private static final Set<String> MAVEN_GOALS = Set.of("validate", "compile", "test", "package", "verify", "install",
			"spring-boot:run");

	private static final Set<String> MAVEN_FLAGS = Set.of("-B", "-q", "-am", "-o", "-e");

	private static final Set<List<String>> VALIDATED = new java.util.HashSet<>();

	record Block(Path page, int line, String language, String text, boolean fragment) {

		@Override
		public String toString() {
			return ROOT.relativize(page) + ":" + line + " (```" + language + ")";
		}

	}

	// --- yaml ---------------------------------------------------------------------------------------------------------

	@Test
	void everyYamlBlockParsesAndEveryRelayConfigurationIsValid() throws Exception {
		List<String> failures = new ArrayList<>();
		int bound = 0;
		for (Block block : blocks("yaml", "yml")) {
			try {
				new Yaml().loadAll(block.text()).forEach(document -> {
				});
			}
			catch (RuntimeException notYaml) {
				failures.add(block + ": not YAML: " + notYaml.getMessage());
				continue;
			}
			if (block.fragment() || !Pattern.compile("(?m)^mcp-relay:").matcher(block.text()).find()) {
				continue;
			}
			bound++;
			String problems = configurationProblems(block.text());
			if (problems != null) {
				failures.add(block + ":\n" + problems);
			}
		}
		assertThat(failures).as("yaml blocks of the manual").isEmpty();
		assertThat(bound).as("relay configurations bound").isGreaterThanOrEqualTo(10);
	}

	/**
	 * Every Spring Boot property ({@code management.*}, {@code spring.*}) a block of the manual sets is one Spring Boot
	 * knows: a renamed property (Boot renamed the tracing ones in 4.0) turns this red.
	 */
	@Test
	void everySpringBootPropertyTheManualSetsExists() throws Exception {
		Set<String> known = new LinkedHashSet<>();
		Set<String> maps = new LinkedHashSet<>();
		com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
		for (String name : List.of("META-INF/spring-configuration-metadata.json",
				"META-INF/additional-spring-configuration-metadata.json")) {
			for (java.net.URL url : java.util.Collections.list(getClass().getClassLoader().getResources(name))) {
				for (com.fasterxml.jackson.databind.JsonNode property : json.readTree(url).path("properties")) {
					known.add(property.path("name").asText());
					if (property.path("type").asText().startsWith("java.util.Map")) {
						maps.add(property.path("name").asText() + ".");
					}
				}
			}
		}
		List<String> unknown = new ArrayList<>();
		int checked = 0;
		for (Block block : blocks("yaml", "yml")) {
			if (block.fragment()) {
				continue;
			}
			for (PropertySource<?> source : loaded(block.text())) {
				for (String property : ((MapPropertySource) source).getPropertyNames()) {
					String name = property.replaceAll("\\[\\d+]", "");
					if (!name.startsWith("management.") && !name.startsWith("spring.")) {
						continue;
					}
					checked++;
					if (!known.contains(name) && maps.stream().noneMatch(name::startsWith)) {
						unknown.add(block + ": " + property);
					}
				}
			}
		}
		assertThat(unknown).as("Spring Boot properties the manual sets that Spring Boot does not know").isEmpty();
		assertThat(checked).as("Spring Boot properties checked").isPositive();
	}

	/** {@code null} when {@code yaml} is a valid relay configuration (in some security mode), else what is wrong. */
	static String configurationProblems(String yaml) throws IOException {
		boolean setsMode = loaded(yaml).stream()
			.anyMatch(source -> source instanceof MapPropertySource map
					&& map.containsProperty("mcp-relay.security.mode"));
		List<String> modes = setsMode ? List.of("as written") : List.of("none", "jwt", "api-key");
		StringBuilder report = new StringBuilder();
		for (String mode : modes) {
			List<String> problems = problems(yaml, mode);
			if (problems.isEmpty()) {
				return null;
			}
			report.append("  in security mode ").append(mode).append(":\n");
			problems.forEach(problem -> report.append("    - ").append(problem).append('\n'));
		}
		return report.toString();
	}

	private static List<String> problems(String yaml, String mode) throws IOException {
		StandardEnvironment environment = new StandardEnvironment();
		for (PropertySource<?> source : loaded(yaml)) {
			environment.getPropertySources().addFirst(source);
		}
		Map<String, Object> deployment = new LinkedHashMap<>();
		Matcher placeholder = PLACEHOLDER.matcher(yaml);
		while (placeholder.find()) {
			deployment.put(placeholder.group(1), dummy(placeholder.group(1)));
		}
		switch (mode) {
			case "none" -> deployment.put("mcp-relay.security.mode", "none");
			case "jwt" -> {
				deployment.put("mcp-relay.security.mode", "jwt");
				deployment.put("mcp-relay.security.jwt.jwk-set-uri", "https://idp.example.com/jwks");
				deployment.put("mcp-relay.security.jwt.issuer", "https://idp.example.com");
			}
			case "api-key" -> {
				deployment.put("mcp-relay.security.mode", "api-key");
				deployment.put("mcp-relay.security.api-keys[0].client", "docs");
				deployment.put("mcp-relay.security.api-keys[0].key-sha256", dummy("DOCS_KEY_SHA256"));
				deployment.put("mcp-relay.security.api-keys[0].servers[0]", "*");
			}
			default -> {
			}
		}
		environment.getPropertySources().addLast(new MapPropertySource("deployment", deployment));
		List<String> problems = new ArrayList<>();
		try {
			RelayProperties properties = Binder.get(environment).bindOrCreate("mcp-relay", RelayProperties.class);
			for (ConfigurationProblem problem : UnknownRelayProperties.find(environment)) {
				problems.add(problem.toString());
			}
			for (ConfigurationProblem problem : RelayPropertiesValidator.validate(properties, environment)) {
				problems.add(problem.toString());
			}
			for (ConfigurationProblem problem : dev.mcprelay.policy.PolicyCompiler.problemsOf(properties)) {
				problems.add(problem.toString());
			}
			// where the block points the store at Redis, Spring Boot must be able to read how
			Binder.get(environment).bind("spring.data.redis", DataRedisProperties.class);
		}
		catch (RuntimeException unbindable) {
			Throwable cause = unbindable;
			StringBuilder message = new StringBuilder();
			while (cause != null) {
				message.append(cause.getMessage()).append("; ");
				cause = cause.getCause();
			}
			problems.add("does not bind: " + message);
		}
		return problems;
	}

	private static List<PropertySource<?>> loaded(String yaml) throws IOException {
		return new YamlPropertySourceLoader().load("docs", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
	}

	private static String dummy(String variable) {
		return variable.endsWith("SHA256") ? sha256(variable) : "dummy-" + variable.toLowerCase(Locale.ROOT);
	}

	// --- bash ---------------------------------------------------------------------------------------------------------

	@Test
	void theDemoSessionRunsAsWrittenAgainstTheDemo() throws Exception {
		List<Block> sessions = blocks("bash").stream().filter(block -> block.text().contains("localhost:8080/mcp/demo"))
			.toList();
		assertThat(sessions).as("the README's demo session").isNotEmpty();
		int port = freePort();
		try (ConfigurableApplicationContext relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.profiles("demo")
			.properties("server.port=" + port, "server.address=127.0.0.1")
			.run()) {
			for (Block session : sessions) {
				assertThat(session.text()).as(session + " pastes a session id").containsPattern("(?m)^SID=\\.\\.\\.");
				String script = session.text()
					.replace("localhost:8080", "127.0.0.1:$PORT")
					.replaceAll("(?m)^SID=\\.\\.\\..*$",
							"SID=\\$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p' \"\\$TRANSCRIPT\" | tr -d '\\\\r' | tail -1)");
				Path transcript = Files.createTempFile("docs-demo-session", ".txt");
				Result result = bash("set -euo pipefail\n"
						+ "curl() { command curl --max-time 30 -w '\\n[http %{http_code}]\\n' \"$@\"; }\n" + script,
						Map.of("PORT", String.valueOf(port), "TRANSCRIPT", transcript.toString()), transcript);
				String out = Files.readString(transcript);
				assertThat(result.exitCode()).as("%s ran:\n%s\n%s", session, out, result.stderr()).isZero();
				List<String> statuses = new ArrayList<>();
				Matcher status = Pattern.compile("\\[http (\\d{3})]").matcher(out);
				while (status.find()) {
					statuses.add(status.group(1));
				}
				assertThat(statuses).as("%s: initialize, initialized (202), tools/list, echo, countdown, DELETE, health\n%s",
						session, out).containsExactly("200", "202", "200", "200", "200", "200", "200");
				assertThat(out).as(session.toString())
					.containsPattern("(?mi)^mcp-session-id: \\S+")
					.contains("\"name\":\"mcp-relay-demo\"")
					.contains("\"echo\"", "\"countdown\"")
					.contains("\"text\":\"hi\"")
					.contains("notifications/progress", "\"progressToken\":\"p1\"")
					.contains("\"status\":\"UP\"");
			}
		}
	}

	@Test
	void theApiKeyRecipePrintsAKeyAndItsHash() throws Exception {
		List<Block> recipes = blocks("bash").stream().filter(block -> block.text().contains("openssl rand")).toList();
		assertThat(recipes).as("the API-key recipe of docs/securing.md").isNotEmpty();
		for (Block recipe : recipes) {
			Path out = Files.createTempFile("docs-api-key", ".txt");
			Result result = bash(recipe.text(), Map.of(), out);
			List<String> lines = Files.readAllLines(out);
			assertThat(result.exitCode()).as("%s: %s", recipe, result.stderr()).isZero();
			assertThat(lines).as(recipe.toString()).hasSize(2);
			String key = lines.get(0).replaceFirst("^key:\\s+", "");
			assertThat(key).matches("[0-9a-f]{64}");
			assertThat(lines.get(1)).as("%s: the hash the configuration holds", recipe).isEqualTo(sha256(key));
		}
	}

	@Test
	void everyOtherCommandNamesWhatExists() throws Exception {
		List<String> failures = new ArrayList<>();
		Set<String> builtImages = new LinkedHashSet<>();
		List<String[]> runs = new ArrayList<>();
		int checked = 0;
		for (Block block : blocks("bash")) {
			if (block.text().contains("localhost:8080/mcp/demo") || block.text().contains("openssl rand")) {
				continue;
			}
			for (String line : commandLines(block.text())) {
				for (String command : line.split("\\s*&&\\s*")) {
					List<String> words = words(command);
					if (words.isEmpty()) {
						continue;
					}
					checked++;
					String where = block + ": " + command;
					String program = words.get(0);
					if (program.equals("./mvnw")) {
						maven(words, where, failures);
					}
					else if (program.matches("bench/[\\w-]+\\.sh")) {
						script(program, where, failures);
					}
					else if (program.equals("docker") && words.size() > 1 && words.get(1).equals("build")) {
						int tag = words.indexOf("-t");
						require(tag > 0 && tag + 1 < words.size(), where + ": names its image with -t", failures);
						if (tag > 0 && tag + 1 < words.size()) {
							builtImages.add(words.get(tag + 1));
						}
						require(words.get(words.size() - 1).equals("."), where + ": builds the repository's folder", failures);
						require(Files.isRegularFile(ROOT.resolve("Dockerfile")), where + ": the Dockerfile exists", failures);
					}
					else if (program.equals("docker") && words.size() > 1 && words.get(1).equals("run")) {
						runs.add(new String[] { where, String.join("\u0000", words) });
						dockerRun(words, where, failures);
					}
					else if (program.equals("java")) {
						javaJar(words, where, failures);
					}
					else if (program.equals("mkdir")) {
						require(words.equals(List.of("mkdir", "-p", "plugins")), where + ": makes the plugins folder",
								failures);
					}
					else if (program.equals("cp")) {
						pluginCopy(words, where, failures);
					}
					else {
						failures.add(where + ": DocsBlocksTest has no rule for '" + program
								+ "': run it or check what it names, in a rule of its own");
					}
				}
			}
		}
		for (String[] run : runs) {
			List<String> words = List.of(run[1].split("\u0000"));
			require(builtImages.contains(words.get(words.size() - 1)),
					run[0] + ": runs an image a docker build of the manual makes " + builtImages, failures);
		}
		assertThat(failures).as("commands of the manual").isEmpty();
		assertThat(checked).as("commands checked").isGreaterThanOrEqualTo(7);
	}

	private static void maven(List<String> words, String where, List<String> failures) throws Exception {
		require(Files.isExecutable(ROOT.resolve("mvnw")), where + ": ./mvnw is executable", failures);
		List<String> validate = new ArrayList<>(List.of("./mvnw"));
		boolean goal = false;
		for (int i = 1; i < words.size(); i++) {
			String word = words.get(i);
			if (word.equals("-pl")) {
				validate.add(word);
				validate.add(words.get(++i));
			}
			else if (word.startsWith("-D")) {
				validate.add(word);
				Matcher profile = Pattern.compile("-Dspring-boot\\.run\\.profiles=(\\S+)").matcher(word);
				if (profile.matches()) {
					profile(profile.group(1), where, failures);
				}
			}
			else if (word.startsWith("-P")) {
				// Maven only warns about a profile no pom declares: the command would run the wrong tier
				for (String id : word.substring(2).split(",")) {
					require(Files.readString(ROOT.resolve("relay/pom.xml")).contains("<id>" + id + "</id>"),
							where + ": the profile " + id + " is declared in relay/pom.xml", failures);
				}
				validate.add(word);
			}
			else if (word.startsWith("-")) {
				require(MAVEN_FLAGS.contains(word), where + ": " + word + " is a flag this rule knows", failures);
				validate.add(word);
			}
			else {
				goal = true;
				require(MAVEN_GOALS.contains(word), where + ": " + word + " is a goal this build uses " + MAVEN_GOALS,
						failures);
				if (word.equals("spring-boot:run")) {
					require(words.contains("-pl") && words.get(words.indexOf("-pl") + 1).equals("relay"),
							where + ": spring-boot:run runs the relay module", failures);
				}
			}
		}
		require(goal, where + ": names a goal", failures);
		if (words.equals(List.of("./mvnw", "verify"))) {
			require(Files.readString(ROOT.resolve(".ci/run")).contains("./mvnw -B verify"),
					where + ": is what CI runs (.ci/run)", failures);
		}
		validate.addAll(List.of("-B", "-q", "validate"));
		if (!VALIDATED.add(validate)) {
			return;
		}
		Path out = Files.createTempFile("docs-mvnw", ".txt");
		Result result = run(validate, Map.of(), out);
		require(result.exitCode() == 0,
				where + ": " + String.join(" ", validate) + " failed:\n" + Files.readString(out) + result.stderr(), failures);
	}

	private static void script(String program, String where, List<String> failures) throws Exception {
		Path script = ROOT.resolve(program);
		require(Files.isRegularFile(script) && Files.isExecutable(script), where + ": " + program + " is an executable file",
				failures);
		if (Files.isRegularFile(script)) {
			Path out = Files.createTempFile("docs-bash-n", ".txt");
			Result result = run(List.of("bash", "-n", program), Map.of(), out);
			require(result.exitCode() == 0, where + ": bash -n " + program + ": " + result.stderr(), failures);
		}
	}

	private static void dockerRun(List<String> words, String where, List<String> failures) throws IOException {
		String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
		String deployment = Files.readString(ROOT.resolve("deploy/application.yml"));
		for (int i = 2; i < words.size() - 1; i++) {
			String word = words.get(i);
			if (word.equals("-e")) {
				String variable = words.get(++i);
				require(deployment.contains("${" + variable + "}"),
						where + ": deploy/application.yml uses ${" + variable + "}", failures);
			}
			else if (word.equals("-v")) {
				Matcher mount = Pattern.compile("\\$PWD/([^:]+):(/app/[^:]+):ro").matcher(words.get(++i));
				require(mount.matches(), where + ": mounts a folder of $PWD read-only under /app", failures);
				if (mount.matches()) {
					require(dockerfile.contains(mount.group(2)), where + ": the Dockerfile names " + mount.group(2),
							failures);
					if (mount.group(1).equals("deploy")) {
						require(Files.isRegularFile(ROOT.resolve("deploy/application.yml")),
								where + ": deploy/application.yml exists", failures);
					}
				}
			}
			else if (word.equals("-p")) {
				require(words.get(++i).matches("\\d+:8080"), where + ": publishes the relay's port 8080", failures);
			}
			else {
				require(word.equals("--rm"), where + ": " + word + " is an option this rule knows", failures);
			}
		}
	}

	private static void javaJar(List<String> words, String where, List<String> failures) throws Exception {
		int jar = words.indexOf("-jar");
		require(jar > 0 && jar + 1 < words.size(), where + ": runs a jar", failures);
		if (jar < 0 || jar + 1 >= words.size()) {
			return;
		}
		String[] relay = artifact(ROOT.resolve("relay/pom.xml"));
		require(words.get(jar + 1).equals("relay/target/" + relay[0] + "-" + relay[1] + ".jar"),
				where + ": the jar is relay/target/" + relay[0] + "-" + relay[1] + ".jar", failures);
		for (String word : words) {
			Matcher profile = Pattern.compile("--spring\\.profiles\\.active=(\\S+)").matcher(word);
			if (profile.matches()) {
				profile(profile.group(1), where, failures);
			}
			else if (word.startsWith("-D")) {
				require(word.startsWith("-Dloader.path="), where + ": " + word + " is loader.path", failures);
			}
		}
	}

	private static void pluginCopy(List<String> words, String where, List<String> failures) throws Exception {
		String[] plugin = artifact(ROOT.resolve("examples/tenant-policy/pom.xml"));
		require(words.equals(List.of("cp", "target/" + plugin[0] + "-" + plugin[1] + ".jar", "plugins/")),
				where + ": copies the example plugin's jar target/" + plugin[0] + "-" + plugin[1] + ".jar to plugins/",
				failures);
	}

	private static void profile(String profile, String where, List<String> failures) {
		require(Files.isRegularFile(ROOT.resolve("relay/src/main/resources/application-" + profile + ".yml")),
				where + ": the relay has the profile " + profile, failures);
	}

	/** The block's commands: comments and blank lines dropped, continued lines joined. */
	static List<String> commandLines(String block) {
		List<String> commands = new ArrayList<>();
		StringBuilder current = new StringBuilder();
		for (String line : block.split("\n")) {
			String code = withoutComment(line);
			if (code.endsWith("\\")) {
				current.append(code, 0, code.length() - 1).append(' ');
				continue;
			}
			current.append(code);
			if (!current.toString().isBlank()) {
				commands.add(current.toString().strip());
			}
			current.setLength(0);
		}
		return commands;
	}

	private static String withoutComment(String line) {
		boolean single = false;
		boolean dbl = false;
		for (int i = 0; i < line.length(); i++) {
			char c = line.charAt(i);
			if (c == '\'' && !dbl) {
				single = !single;
			}
			else if (c == '"' && !single) {
				dbl = !dbl;
			}
			else if (c == '#' && !single && !dbl && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
				return line.substring(0, i).stripTrailing();
			}
		}
		return line.stripTrailing();
	}

	/** Shell words, quotes removed ({@code $PWD} kept as written). */
	static List<String> words(String command) {
		List<String> words = new ArrayList<>();
		StringBuilder word = new StringBuilder();
		boolean inWord = false;
		char quote = 0;
		for (char c : command.toCharArray()) {
			if (quote != 0) {
				if (c == quote) {
					quote = 0;
				}
				else {
					word.append(c);
				}
			}
			else if (c == '\'' || c == '"') {
				quote = c;
				inWord = true;
			}
			else if (Character.isWhitespace(c)) {
				if (inWord) {
					words.add(word.toString());
					word.setLength(0);
					inWord = false;
				}
			}
			else {
				word.append(c);
				inWord = true;
			}
		}
		if (inWord) {
			words.add(word.toString());
		}
		return words;
	}

	// --- links --------------------------------------------------------------------------------------------------------

	@Test
	void everyRelativeLinkPointsToWhatExists() throws IOException {
		Pattern link = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");
		List<String> failures = new ArrayList<>();
		int checked = 0;
		for (Path page : pages()) {
			String text = outsideCode(Files.readString(page));
			Matcher found = link.matcher(text);
			while (found.find()) {
				String target = found.group(1);
				if (target.matches("(?i)(https?|mailto):.*")) {
					continue;
				}
				checked++;
				String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
				String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
				Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
				String where = ROOT.relativize(page) + ": (" + target + ")";
				if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
					failures.add(where + ": no such file " + ROOT.relativize(resolved));
					continue;
				}
				if (anchor != null && resolved.toString().endsWith(".md")
						&& !anchors(Files.readString(resolved)).contains(anchor)) {
					failures.add(where + ": " + ROOT.relativize(resolved) + " has no heading #" + anchor);
				}
			}
		}
		assertThat(failures).as("relative links of the manual").isEmpty();
		assertThat(checked).as("relative links checked").isGreaterThanOrEqualTo(20);
	}

	/** GitHub's anchors for the headings of {@code markdown}. */
	static Set<String> anchors(String markdown) {
		Set<String> anchors = new LinkedHashSet<>();
		for (String line : outsideFences(markdown).split("\n")) {
			Matcher heading = Pattern.compile("^#{1,6}\\s+(.*?)\\s*$").matcher(line);
			if (heading.matches()) {
				anchors.add(heading.group(1).replace("`", "").toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "")
					.replace(' ', '-'));
			}
		}
		return anchors;
	}

	private static String outsideCode(String markdown) {
		return outsideFences(markdown).replaceAll("`[^`\n]*`", "x");
	}

	private static String outsideFences(String markdown) {
		StringBuilder out = new StringBuilder();
		boolean fenced = false;
		for (String line : markdown.split("\n")) {
			if (FENCE.matcher(line).matches()) {
				fenced = !fenced;
				continue;
			}
			if (!fenced) {
				out.append(line).append('\n');
			}
		}
		return out.toString();
	}

	// --- the pages ----------------------------------------------------------------------------------------------------

	/** {@code README.md}, {@code CONTRIBUTING.md} and every {@code docs/*.md}. */
	static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter(file -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/** Every fenced block in one of {@code languages}, of every page. */
	static List<Block> blocks(String... languages) throws IOException {
		List<Block> blocks = new ArrayList<>();
		for (Path page : pages()) {
			List<String> lines = Files.readAllLines(page);
			for (int i = 0; i < lines.size(); i++) {
				Matcher open = FENCE.matcher(lines.get(i));
				if (!open.matches()) {
					continue;
				}
				String language = open.group(1);
				int start = i;
				String indent = lines.get(i).substring(0, lines.get(i).indexOf('`'));
				StringBuilder text = new StringBuilder();
				for (i++; i < lines.size() && !FENCE.matcher(lines.get(i)).matches(); i++) {
					String line = lines.get(i);
					text.append(line.startsWith(indent) ? line.substring(indent.length()) : line).append('\n');
				}
				String before = start > 0 ? lines.get(start - 1).strip() : "";
				if (List.of(languages).contains(language)) {
					blocks.add(new Block(page, start + 1, language, text.toString(), before.equals("<!-- fragment -->")));
				}
			}
		}
		return blocks;
	}

	// --- helpers ------------------------------------------------------------------------------------------------------

	record Result(int exitCode, String stderr) {
	}

	private static Result bash(String script, Map<String, String> environment, Path stdout) throws Exception {
		return run(List.of("bash", "-c", script), environment, stdout);
	}

	private static Result run(List<String> command, Map<String, String> environment, Path stdout) throws Exception {
		Path stderr = Files.createTempFile("docs-command", ".err");
		ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile())
			.redirectOutput(stdout.toFile())
			.redirectError(stderr.toFile());
		builder.environment().putAll(environment);
		Process process = builder.start();
		if (!process.waitFor(3, TimeUnit.MINUTES)) {
			process.descendants().forEach(ProcessHandle::destroyForcibly);
			process.destroyForcibly();
			return new Result(-1, "timed out after 3 minutes: " + command);
		}
		return new Result(process.exitValue(), Files.readString(stderr));
	}

	/** {@code [artifactId, version]} of a pom (the version may come from its parent). */
	private static String[] artifact(Path pom) throws Exception {
		Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
		Element project = document.getDocumentElement();
		String artifactId = child(project, "artifactId");
		String version = child(project, "version");
		if (version == null) {
			for (Node node = project.getFirstChild(); node != null; node = node.getNextSibling()) {
				if (node instanceof Element element && element.getTagName().equals("parent")) {
					version = child(element, "version");
				}
			}
		}
		return new String[] { artifactId, version };
	}

	private static String child(Element parent, String name) {
		for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				return element.getTextContent().strip();
			}
		}
		return null;
	}

	private static void require(boolean condition, String what, List<String> failures) {
		if (!condition) {
			failures.add(what);
		}
	}

	private static String sha256(String text) {
		try {
			return HexFormat.of().formatHex(
					MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (java.security.NoSuchAlgorithmException impossible) {
			throw new IllegalStateException(impossible);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
