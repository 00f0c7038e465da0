package dev.mcprelay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.mcprelay.McpRelayApplication;

/** A bad configuration stops start-up with one line per problem, each naming its property and the fix. */
@ExtendWith(OutputCaptureExtension.class)
class RelayConfigurationValidationTest {

	private static final String SECRET = "super-secret-value-1234";

	@Test
	void everyProblemIsNamedByItsPropertyPath() {
		List<ConfigurationProblem> problems = problemsFor(
				"--mcp-relay.servers.nourl.authorization=Bearer " + SECRET,
				"--mcp-relay.servers.relative.url=example.com/mcp",
				"--mcp-relay.servers.ftp.url=ftp://example.com/mcp",
				"--mcp-relay.servers.ok.url=https://example.com/mcp",
				"--mcp-relay.servers.ok.headers[0].name=X-Both",
				"--mcp-relay.servers.ok.headers[0].value=" + SECRET,
				"--mcp-relay.servers.ok.headers[0].from-request-header=X-In",
				"--mcp-relay.servers.ok.headers[1].name=X-Neither",
				"--mcp-relay.servers.ok.headers[2].name= ",
				"--mcp-relay.servers.ok.headers[2].value=v",
				"--mcp-relay.servers.ok.headers[3].name=Host",
				"--mcp-relay.servers.ok.headers[3].value=v",
				"--mcp-relay.servers.ok.timeouts.non-streaming=-5s",
				"--mcp-relay.servers.ok.timeouts.streaming-idle=0s",
				"--mcp-relay.servers.ok.max-buffered-body=0B",
				"--mcp-relay.servers.ok.headers[4].name=X-Unset",
				"--mcp-relay.servers.ok.headers[4].value=${MCP_RELAY_TEST_UNSET_VARIABLE}",
				"--mcp-relay.servers.ok.tools.allow[0]=echo",
				"--mcp-relay.servers.ok.tools.allow[1]=github *",
				"--mcp-relay.servers.ok.tools.deny[0]= ",
				"--mcp-relay.servers.ok.tools.annotations-max-age=0s",
				"--mcp-relay.servers.ok.headers[5].name=Mcp-Name",
				"--mcp-relay.servers.ok.headers[5].value=echo",
				"--mcp-relay.allowed-origins[0]=https://app.example.com/path");

		assertThat(problems).extracting(ConfigurationProblem::property).containsExactlyInAnyOrder(
				"mcp-relay.servers.nourl.url",
				"mcp-relay.servers.relative.url",
				"mcp-relay.servers.ftp.url",
				"mcp-relay.servers.ok.headers[0]",
				"mcp-relay.servers.ok.headers[1]",
				"mcp-relay.servers.ok.headers[2].name",
				"mcp-relay.servers.ok.headers[3].name",
				"mcp-relay.servers.ok.timeouts.non-streaming",
				"mcp-relay.servers.ok.timeouts.streaming-idle",
				"mcp-relay.servers.ok.max-buffered-body",
				"mcp-relay.servers.ok.headers[4].value",
				"mcp-relay.servers.ok.tools.allow[1]",
				"mcp-relay.servers.ok.tools.deny[0]",
				"mcp-relay.servers.ok.tools.annotations-max-age",
				"mcp-relay.servers.ok.headers[5].name",
				"mcp-relay.allowed-origins[0]");
		assertThat(problems).allSatisfy(p -> {
			assertThat(p.fix()).as("each problem says what to write instead").isNotBlank();
			assertThat(p.toString()).as("no secret in any message").doesNotContain(SECRET);
		});
		assertThat(problems).filteredOn(p -> p.property().endsWith("relative.url"))
			.singleElement()
			.satisfies(p -> assertThat(p.problem()).contains("relative"));
		assertThat(problems).filteredOn(p -> p.property().endsWith("headers[0]"))
			.singleElement()
			.satisfies(p -> assertThat(p.problem()).contains("more than one of value, from-request-header"));
		assertThat(problems).filteredOn(p -> p.property().endsWith("headers[4].value"))
			.singleElement()
			.satisfies(p -> assertThat(p.toString()).contains("MCP_RELAY_TEST_UNSET_VARIABLE").contains("not set"));
	}

	@Test
	void startUpFailsWithAReportThatListsEveryProblemAndNoSecret(CapturedOutput output) {
		Throwable failure = startFailing("--mcp-relay.servers.github.authorization=Bearer " + SECRET,
				"--mcp-relay.servers.github.headers[0].name=X-Key", "--mcp-relay.servers.github.headers[0].value=" + SECRET,
				"--mcp-relay.servers.github.headers[0].from-request-header=X-In");

		InvalidRelayConfigurationException cause = findCause(failure);
		FailureAnalysis analysis = new InvalidRelayConfigurationFailureAnalyzer().analyze(failure);
		assertThat(analysis.getDescription()).contains("2 problem(s)")
			.contains("mcp-relay.servers.github.url: is missing")
			.contains("mcp-relay.servers.github.headers[0]: has more than one of value, from-request-header")
			.doesNotContain(SECRET);
		assertThat(cause.problems()).hasSize(2);
		assertThat(output.getAll()).as("what Spring Boot printed at start-up")
			.contains("mcp-relay.servers.github.url: is missing")
			.doesNotContain(SECRET);
	}

	@Test
	void eachInjectionNeedsANameAndExactlyOneSource() {
		List<ConfigurationProblem> problems = problemsFor("--mcp-relay.servers.x.url=https://example.com/mcp",
				"--mcp-relay.servers.x.arguments.inject[0].name=_tenant",
				"--mcp-relay.servers.x.arguments.inject[0].value=" + SECRET,
				"--mcp-relay.servers.x.arguments.inject[0].from-request-header=X-Tenant",
				"--mcp-relay.servers.x.arguments.inject[1].name=_who",
				"--mcp-relay.servers.x.arguments.inject[2].name=_user",
				"--mcp-relay.servers.x.arguments.inject[2].from-caller-claim=sub",
				"--mcp-relay.servers.x.arguments.inject[3].name= ",
				"--mcp-relay.servers.x.arguments.inject[3].value=v",
				"--mcp-relay.servers.x.arguments.inject[4].name=_ok",
				"--mcp-relay.servers.x.arguments.inject[4].from-request-header=X-Ok",
				"--mcp-relay.servers.x.arguments.inject[4].tools[0]=search_*");

		assertThat(problems).extracting(ConfigurationProblem::property).containsExactlyInAnyOrder(
				"mcp-relay.servers.x.arguments.inject[0]", "mcp-relay.servers.x.arguments.inject[1]",
				"mcp-relay.servers.x.arguments.inject[2].from-caller-claim",
				"mcp-relay.servers.x.arguments.inject[3].name");
		assertThat(problems).allSatisfy(p -> assertThat(p.toString()).doesNotContain(SECRET));
	}

	@Test
	void anUnknownKeyIsNamedWithTheNearestValidKey() {
		List<ConfigurationProblem> problems = UnknownRelayProperties.find(environment(
				"--mcp-relay.servers.x.url=https://example.com/mcp", "--mcp-relay.servers.x.tool.deny[0]=secret_*",
				"--mcp-relay.servers.x.timeouts.non-streamin=5s", "--mcp-relay.alowed-origins[0]=https://a.example",
				"--mcp-relay.tool-search.enabled=true", "--mcp-relay.servers.x.url.extra=1",
				"--mcp-relay.servers.x.headers[0].nmae=X-A", "--mcp-relay.servers.x.headers[0].value=v"));

		assertThat(problems).extracting(ConfigurationProblem::property).containsExactly(
				"mcp-relay.alowed-origins[0]", "mcp-relay.servers.x.headers[0].nmae",
				"mcp-relay.servers.x.timeouts.non-streamin", "mcp-relay.servers.x.tool.deny[0]",
				"mcp-relay.servers.x.url.extra", "mcp-relay.tool-search.enabled");
		assertThat(problems).extracting(ConfigurationProblem::fix).containsExactly(
				"Did you mean mcp-relay.allowed-origins[0]? Rename or remove it",
				"Did you mean mcp-relay.servers.x.headers[0].name? Rename or remove it",
				"Did you mean mcp-relay.servers.x.timeouts.non-streaming? Rename or remove it",
				"Did you mean mcp-relay.servers.x.tools.deny[0]? Rename or remove it",
				"Did you mean mcp-relay.servers.x.url? Rename or remove it",
				"Remove it; see the configuration reference in docs/configuration.md");
	}

	@Test
	void everyDocumentedKeyIsKnown() {
		assertThat(UnknownRelayProperties.find(environment("--mcp-relay.default-server=x",
				"--mcp-relay.allowed-origins=https://a.example,https://b.example",
				"--mcp-relay.connection-pool.max-connections=10", "--mcp-relay.connection-pool.max-idle-time=5s",
				"--mcp-relay.access-log.enabled=false", "--mcp-relay.access-log.format=json",
				"--mcp-relay.shutdown.stream-grace-period=3s", "--mcp-relay.servers.x.url=https://example.com/mcp",
				"--mcp-relay.servers.x.authorization=Bearer t", "--mcp-relay.servers.x.headers[0].name=X-A",
				"--mcp-relay.servers.x.headers[0].from-request-header=X-B", "--mcp-relay.servers.x.headers[0].required=true",
				"--mcp-relay.servers.x.timeouts.streaming-idle=3s", "--mcp-relay.servers.x.max-buffered-body=1MB",
				"--mcp-relay.servers.x.tools.allow=a,b", "--mcp-relay.servers.x.rejected-server-requests=notify",
				"--mcp-relay.servers.x.arguments.reserved-prefix=__", "--mcp-relay.servers.x.arguments.inject[0].name=_t",
				"--mcp-relay.servers.x.arguments.inject[0].value=v", "--mcp-relay.servers.x.arguments.inject[0].tools[0]=a*",
				"--mcp-relay.servers.x.timeouts.client-write=5s", "--mcp-relay.client-connections.idle-timeout=5s",
				"--mcp-relay.servers.[my.dotted.id].url=https://example.com/mcp", "--mcp-relay.servers.x.transport=sse",
				"--mcp-relay.sessions.max-bridged-sessions=5", "--mcp-relay.sessions.idle-timeout=10m")))
			.isEmpty();
	}

	@Test
	void startUpFailsOnAnUnknownKey() {
		Throwable failure = startFailing("--mcp-relay.servers.github.url=https://example.com/mcp",
				"--mcp-relay.servers.github.tool.deny[0]=delete_*");

		assertThat(findCause(failure).problems()).extracting(ConfigurationProblem::toString)
			.containsExactly("mcp-relay.servers.github.tool.deny[0]: is not a property of mcp-relay. "
					+ "Did you mean mcp-relay.servers.github.tools.deny[0]? Rename or remove it");
	}

	@Test
	void defaultsApplyPerServer() {
		String url = "--mcp-relay.servers.a.url=https://example.com/mcp";
		RelayProperties properties = bind(url);
		ServerProperties server = properties.servers().get("a");
		assertThat(server.timeouts().nonStreaming()).hasSeconds(60);
		assertThat(server.timeouts().streamingIdle()).hasSeconds(60);
		assertThat(server.maxBufferedBody().toMegabytes()).isEqualTo(50);
		assertThat(server.headers()).isEmpty();
		assertThat(RelayPropertiesValidator.validate(properties, environment(url))).isEmpty();
	}

	@Test
	void toStringNeverShowsSecrets() {
		RelayProperties properties = bind("--mcp-relay.servers.a.url=https://u:" + SECRET + "@example.com/mcp?key=" + SECRET,
				"--mcp-relay.servers.a.authorization=Bearer " + SECRET, "--mcp-relay.servers.a.headers[0].name=X-Key",
				"--mcp-relay.servers.a.headers[0].value=" + SECRET);
		assertThat(properties.toString()).doesNotContain(SECRET).contains("<redacted>").contains("example.com");
	}

	@Test
	void aShutdownGracePeriodThatIsNotPositiveIsAProblem() {
		assertThat(problemsFor("--mcp-relay.shutdown.stream-grace-period=0s"))
			.singleElement()
			.satisfies(problem -> {
				assertThat(problem.property()).isEqualTo("mcp-relay.shutdown.stream-grace-period");
				assertThat(problem.fix()).contains("10s");
			});
	}

	@Test
	void aTransportThatIsNoneOfTheTwoAndNoRoomForSessionsAreProblems() {
		assertThat(problemsFor("--mcp-relay.sessions.max-bridged-sessions=0", "--mcp-relay.sessions.idle-timeout=0s"))
			.extracting(ConfigurationProblem::property)
			.containsExactlyInAnyOrder("mcp-relay.sessions.max-bridged-sessions", "mcp-relay.sessions.idle-timeout");
		assertThat(bind("--mcp-relay.servers.a.url=https://example.com/sse", "--mcp-relay.servers.a.transport=sse")
			.servers().get("a").transport()).isEqualTo(UpstreamTransportKind.SSE);
		assertThat(bind("--mcp-relay.servers.a.url=https://example.com/mcp").servers().get("a").transport())
			.as("the default").isEqualTo(UpstreamTransportKind.STREAMABLE_HTTP);
		assertThat(startFailing("--mcp-relay.servers.a.url=https://example.com/mcp", "--mcp-relay.servers.a.transport=websocket"))
			.as("an unknown transport stops start-up").isNotNull();
	}

	@Test
	void pinnedProtocolVersionsBindAndOnlyKnownOnesOnAStreamableServerPass() {
		String url = "--mcp-relay.servers.a.url=https://example.com/mcp";
		assertThat(bind(url).servers().get("a").protocolVersions()).as("learnt, by default").isEmpty();
		assertThat(bind(url, "--mcp-relay.servers.a.protocol-versions=2026-07-28").servers().get("a").protocolVersions())
			.containsExactly("2026-07-28");
		assertThat(problemsFor(url, "--mcp-relay.servers.a.protocol-versions=2026-07-28,2025-11-25")).isEmpty();
		assertThat(problemsFor(url, "--mcp-relay.servers.a.protocol-versions=2026-07-28,2027-13-01"))
			.singleElement()
			.satisfies(problem -> {
				assertThat(problem.property()).isEqualTo("mcp-relay.servers.a.protocol-versions[1]");
				assertThat(problem.fix()).as("names what may be written").contains("2025-11-25").contains("2026-07-28");
			});
		assertThat(problemsFor("--mcp-relay.servers.a.url=https://example.com/sse", "--mcp-relay.servers.a.transport=sse",
				"--mcp-relay.servers.a.protocol-versions=2026-07-28"))
			.as("a legacy HTTP+SSE server speaks 2024-11-05")
			.extracting(ConfigurationProblem::property)
			.containsExactly("mcp-relay.servers.a.protocol-versions");
	}

	@Test
	void anUnsetVariableAnywhereInTheTreeStopsStartUpNamingIt() {
		Throwable failure = startFailing("--mcp-relay.servers.github.url=https://example.com/mcp",
				"--mcp-relay.sessions.secret=${MCP_RELAY_TEST_UNSET_SECRET}",
				"--mcp-relay.servers.github.tools.allow[0]=${MCP_RELAY_TEST_UNSET_TOOL:get_*}");

		assertThat(findCause(failure).problems()).as("the placeholder's text must never become the session key")
			.extracting(ConfigurationProblem::toString)
			.containsExactly("mcp-relay.sessions.secret: refers to ${MCP_RELAY_TEST_UNSET_SECRET}, which is not set. "
					+ "Set the environment variable MCP_RELAY_TEST_UNSET_SECRET (or give a default: "
					+ "${MCP_RELAY_TEST_UNSET_SECRET:value})");
	}

	@Test
	void anUnsetVariableInAUrlIsNamedNotReportedAsAnIllegalCharacter() {
		assertThat(problemsFor("--mcp-relay.servers.a.url=${MCP_RELAY_TEST_UNSET_HOST}/mcp",
				"--mcp-relay.servers.b.url=https://${MCP_RELAY_TEST_UNSET_HOST}:8443/mcp"))
			.extracting(ConfigurationProblem::toString)
			.containsExactlyInAnyOrder(
					"mcp-relay.servers.a.url: refers to ${MCP_RELAY_TEST_UNSET_HOST}, which is not set. Set the "
							+ "environment variable MCP_RELAY_TEST_UNSET_HOST (or give a default: ${MCP_RELAY_TEST_UNSET_HOST:value})",
					"mcp-relay.servers.b.url: refers to ${MCP_RELAY_TEST_UNSET_HOST}, which is not set. Set the "
							+ "environment variable MCP_RELAY_TEST_UNSET_HOST (or give a default: ${MCP_RELAY_TEST_UNSET_HOST:value})");
	}

	@Test
	void aVariableInShellSyntaxIsRefusedWithWhatToWriteInstead() {
		List<ConfigurationProblem> problems = UnresolvedVariables.findInEnvironment(environment(
				"--mcp-relay.servers.a.url=https://example.com/mcp?$filter=x",
				"--mcp-relay.servers.a.authorization=Bearer $GITHUB_TOKEN",
				"--mcp-relay.servers.a.headers[0].name=X-Key", "--mcp-relay.servers.a.headers[0].value=$KEY",
				"--mcp-relay.servers.a.headers[1].name=X-Price", "--mcp-relay.servers.a.headers[1].value=5$ a$b",
				"--mcp-relay.servers.a.headers[2].name=X-Literal", "--mcp-relay.servers.a.headers[2].value=$Qm7literal"));

		assertThat(problems).as("a $ inside a word (a URL's $filter, a secret's character), or before a name that is no "
				+ "environment variable's (not upper case), is no variable")
			.extracting(ConfigurationProblem::toString)
			.containsExactlyInAnyOrder(
					"mcp-relay.servers.a.authorization: holds $GITHUB_TOKEN in shell syntax, which Spring Boot does not "
							+ "expand: it would be used as written. Write ${GITHUB_TOKEN} instead of $GITHUB_TOKEN",
					"mcp-relay.servers.a.headers[0].value: holds $KEY in shell syntax, which Spring Boot does not expand: "
							+ "it would be used as written. Write ${KEY} instead of $KEY");
	}

	@Test
	void aBodyCapTheHeapCannotHoldIsAProblem() {
		long heap = 192L * 1024 * 1024;
		List<ConfigurationProblem> problems = new java.util.ArrayList<>();
		validateBudget(heap, problems, "--mcp-relay.servers.big.url=https://example.com/mcp",
				"--mcp-relay.servers.big.max-buffered-body=1500MB", "--mcp-relay.servers.ok.url=https://example.com/mcp",
				"--mcp-relay.servers.ok.max-buffered-body=20MB");
		assertThat(problems).extracting(ConfigurationProblem::toString).containsExactly(
				"mcp-relay.servers.big.max-buffered-body: is 1500MB, and a body is counted as twice its size while it is "
						+ "read (its bytes, and what parsing them makes), more than every buffered body together may take "
						+ "(48MB, a quarter of this JVM's 192MB maximum heap): such a body could never be read. Write at "
						+ "most 24MB, or give the JVM a heap of at least 12000MB (-Xmx, or more memory for the container: "
						+ "the image's heap is 60% of it)");

		problems.clear();
		validateBudget(heap, problems, "--mcp-relay.servers.plain.url=https://example.com/mcp");
		assertThat(problems).extracting(ConfigurationProblem::toString).as("the default configuration in a small heap: "
				+ "where the 50MB comes from, and the heap it needs").containsExactly(
				"mcp-relay.servers.plain.max-buffered-body: is 50MB (the default, for a server that sets none), and a "
						+ "body is counted as twice its size while it is read (its bytes, and what parsing them makes), "
						+ "more than every buffered body together may take (48MB, a quarter of this JVM's 192MB maximum "
						+ "heap): such a body could never be read. Write at most 24MB, or give the JVM a heap of at least "
						+ "400MB (-Xmx, or more memory for the container: the image's heap is 60% of it)");

		problems.clear();
		validateBudget(heap, problems, "--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.max-buffered-bodies=150MB");
		assertThat(problems).extracting(ConfigurationProblem::property).containsExactly("mcp-relay.max-buffered-bodies");

		problems.clear();
		validateBudget(heap, problems, "--mcp-relay.servers.plain.url=https://example.com/mcp",
				"--mcp-relay.servers.plain.max-buffered-body=50MB");
		assertThat(problems).extracting(ConfigurationProblem::toString)
			.as("cold review D, finding 7: 50MB written by the operator is no default")
			.singleElement()
			.satisfies(problem -> assertThat(problem).startsWith("mcp-relay.servers.plain.max-buffered-body: is 50MB, and a "
					+ "body is counted as twice its size"));

		problems.clear();
		validateBudget(heap, problems, "--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.servers.a.max-buffered-body=22MB", "--mcp-relay.max-buffered-bodies=90MB");
		assertThat(problems).as("a budget of its own, within half the heap, whose default share holds the cap twice")
			.isEmpty();

		problems.clear();
		validateBudget(heap, problems, "--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.servers.a.max-buffered-body=1500MB", "--mcp-relay.security.mode=jwt");
		assertThat(problems).extracting(ConfigurationProblem::toString).as("callers told apart: the heap one caller's "
				+ "share of the budget needs").containsExactly("mcp-relay.servers.a.max-buffered-body: is 1500MB, and a "
						+ "body is counted as twice its size while it is read (its bytes, and what parsing them makes), "
						+ "more than every buffered body together may take (48MB, a quarter of this JVM's 192MB maximum "
						+ "heap): such a body could never be read. Write at most 12MB, or give the JVM a heap of at least "
						+ "24000MB (-Xmx, or more memory for the container: the image's heap is 60% of it)");
	}

	@Test
	void aShareOfOneCallerTheBudgetOrABodyCannotFitIsAProblem() {
		long heap = 192L * 1024 * 1024;
		List<ConfigurationProblem> problems = new java.util.ArrayList<>();
		validateBudget(heap, problems, "--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.max-buffered-bodies-per-caller=60MB");
		assertThat(problems).extracting(ConfigurationProblem::toString).containsExactly(
				"mcp-relay.max-buffered-bodies-per-caller: is 60MB, but it must be positive and at most what every "
						+ "buffered body together may take (48MB, a quarter of this JVM's 192MB maximum heap). Write at "
						+ "most 48MB, or remove it (default: half of that)");

		problems.clear();
		validateBudget(heap, problems, "--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.servers.a.max-buffered-body=10MB", "--mcp-relay.max-buffered-bodies-per-caller=15MB",
				"--mcp-relay.security.mode=api-key");
		assertThat(problems).extracting(ConfigurationProblem::toString).containsExactly(
				"mcp-relay.servers.a.max-buffered-body: is 10MB, and a body is counted as twice its size while it is read "
						+ "(its bytes, and what parsing them makes), more than one caller may hold of the buffered bodies "
						+ "(15MB, mcp-relay.max-buffered-bodies-per-caller): such a body could never be read. Write at "
						+ "most 7MB, or raise mcp-relay.max-buffered-bodies-per-caller");

		assertThat(bind("--mcp-relay.servers.a.url=https://example.com/mcp", "--mcp-relay.max-buffered-bodies=40MB",
				"--mcp-relay.servers.a.max-buffered-body=5MB").bufferedBodiesPerCaller().toMegabytes())
			.as("unset: half the budget, whatever the caps").isEqualTo(20);
		assertThat(bind("--mcp-relay.servers.a.url=https://example.com/mcp", "--mcp-relay.max-buffered-bodies=40MB",
				"--mcp-relay.servers.a.max-buffered-body=15MB").bufferedBodiesPerCaller().toMegabytes()).isEqualTo(20);
	}

	@Test
	void theDefaultShareOfOneCallerLeavesTheOtherHalfToTheOthers() {
		long heap = 400L * 1024 * 1024;
		List<ConfigurationProblem> problems = new java.util.ArrayList<>();
		validateBudget(heap, problems, "--mcp-relay.servers.plain.url=https://example.com/mcp",
				"--mcp-relay.security.mode=api-key");
		assertThat(problems).extracting(ConfigurationProblem::toString).as("the default cap in a 400 MB heap: the "
				+ "budget holds one such body, but a caller's share, half of it, does not").containsExactly(
				"mcp-relay.servers.plain.max-buffered-body: is 50MB (the default, for a server that sets none), and a "
						+ "body is counted as twice its size while it is read (its bytes, and what parsing them makes), "
						+ "more than one caller may hold of the buffered bodies (50MB, half of 100MB, the default of "
						+ "mcp-relay.max-buffered-bodies-per-caller): such a body could never be read. Write at most 25MB, "
						+ "or give the JVM a heap of at least 800MB (-Xmx, or more memory for the container: the image's "
						+ "heap is 60% of it)");

		problems.clear();
		validateBudget(heap, problems, "--mcp-relay.servers.plain.url=https://example.com/mcp",
				"--mcp-relay.security.mode=none");
		assertThat(problems).as("anonymous callers are not told apart: they share the whole budget").isEmpty();

		problems.clear();
		validateBudget(2 * heap, problems, "--mcp-relay.servers.plain.url=https://example.com/mcp",
				"--mcp-relay.security.mode=api-key");
		assertThat(problems).as("in 800 MB, half the budget holds the default cap twice").isEmpty();
	}

	@Test
	void aShareThatIsTheWholeBudgetIsWarnedOf() {
		assertThat(BufferedBodiesValidator.wholeBudgetWarning(bind("--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.security.mode=api-key", "--mcp-relay.max-buffered-bodies=40MB",
				"--mcp-relay.max-buffered-bodies-per-caller=40MB"))).hasValue("mcp-relay.max-buffered-bodies-per-caller "
						+ "(40MB) is all of mcp-relay.max-buffered-bodies (40MB): one caller's bodies may take the memory "
						+ "of every other caller, who then gets 503 relay_overloaded. Leave it unset (half of the budget) "
						+ "or write less");
		assertThat(BufferedBodiesValidator.wholeBudgetWarning(bind("--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.security.mode=api-key", "--mcp-relay.max-buffered-bodies=40MB"))).isEmpty();
		assertThat(BufferedBodiesValidator.wholeBudgetWarning(bind("--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.security.mode=none", "--mcp-relay.max-buffered-bodies=40MB",
				"--mcp-relay.max-buffered-bodies-per-caller=40MB"))).as("anonymous callers share it anyway").isEmpty();
	}

	@Test
	void aVariableInShellSyntaxInTheRelaysEnvironmentVariablesIsRefusedWithoutItsValue() {
		var environment = environment("--mcp-relay.servers.up.url=https://example.com/mcp");
		environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
				new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						java.util.Map.of("MCPRELAY_SERVERS_UP_HEADERS_0_NAME", "Authorization",
								"MCPRELAY_SERVERS_UP_HEADERS_0_VALUE", "Bearer $GITHUB_TOKEN",
								"MCP_RELAY_SECURITY_MODE", "$RELAY_MODE", "GITHUB_TOKEN", "ghp_QM7REAL",
								"MCPRELAY_SESSIONS_SECRET", "$Qm7literal", "PS1", "$HOSTNAME",
								"MCP_RELAY_SERVICE_HOST", "$NOT_THE_RELAYS")));

		assertThat(UnresolvedVariables.findInEnvironment(environment)).extracting(ConfigurationProblem::toString)
			.as("named by the variable; a lower-case $ word (a secret's text), and variables not meant for the relay, "
					+ "are no variables")
			.containsExactly("environment variable MCPRELAY_SERVERS_UP_HEADERS_0_VALUE: " + SHELL_SYNTAX,
					"environment variable MCP_RELAY_SECURITY_MODE: " + SHELL_SYNTAX);
	}

	/** What a problem says of shell syntax in a value that may be a secret: nothing of the value. */
	private static final String SHELL_SYNTAX = "holds shell syntax ($ and a variable's name), which Spring Boot does not "
			+ "expand: it would be used as written. Write ${NAME} instead of $NAME";

	/** What a problem says of a placeholder in a value that may be a secret: nothing of the value. */
	private static final String UNSET = "refers to a variable that is not set (Spring Boot would use the text as "
			+ "written). Set the variable the value refers to, or give it a default (${NAME:value})";

	@Test
	void aSecretSetInAnEnvironmentVariableIsNeverPrintedInPartEither() {
		// cold review A, finding 6: "mcp-relay.sessions.secret: refers to ${Wq7vLm}, which is not set"
		var environment = environment("--mcp-relay.servers.up.url=https://example.com/mcp");
		environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
				new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						java.util.Map.of("MCPRELAY_SESSIONS_SECRET", "kP9#x2${Wq7vLm}Tz4-0123456789abcdef",
								"MCPRELAY_SERVERS_UP_AUTHORIZATION", "QM7 $ABC123 tail")));
		RelayProperties bound = org.springframework.boot.context.properties.bind.Binder.get(environment)
			.bindOrCreate("mcp-relay", RelayProperties.class);
		List<ConfigurationProblem> problems = new ArrayList<>(UnresolvedVariables.findInEnvironment(environment));
		problems.addAll(RelayPropertiesValidator.validate(bound, environment));

		assertThat(problems).extracting(ConfigurationProblem::toString)
			.as("refused, by the property, saying what is wrong; nothing of the value")
			.contains("mcp-relay.sessions.secret: " + UNSET,
					"environment variable MCPRELAY_SERVERS_UP_AUTHORIZATION: " + SHELL_SYNTAX)
			.noneMatch(problem -> problem.contains("Wq7vLm") || problem.contains("ABC123") || problem.contains("QM7"));
	}

	@Test
	void aHeaderValueWithALineBreakOnceItsVariablesResolvedIsRefusedByItsPropertyWithoutItsValue() {
		// cold review F, LOW 4: a Secret with a trailing newline started the relay, then every request failed with 502
		var environment = environment("--mcp-relay.servers.up.url=https://example.com/mcp",
				"--mcp-relay.servers.up.authorization=${UP_TOKEN}", "--mcp-relay.servers.up.headers[0].name=X-Key",
				"--mcp-relay.servers.up.headers[0].value=${UP_KEY}");
		environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
				new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						java.util.Map.of("UP_TOKEN", "Bearer kP9xTOKEN\n", "UP_KEY", "kP9x\rKEY")));
		RelayProperties bound = org.springframework.boot.context.properties.bind.Binder.get(environment)
			.bindOrCreate("mcp-relay", RelayProperties.class);

		assertThat(RelayPropertiesValidator.validate(bound, environment)).extracting(ConfigurationProblem::toString)
			.as("refused by the property; nothing of the value")
			.anyMatch(problem -> problem.startsWith("mcp-relay.servers.up.authorization: holds a line break"))
			.anyMatch(problem -> problem.startsWith("mcp-relay.servers.up.headers[0].value: holds a line break"))
			.noneMatch(problem -> problem.contains("kP9x"));
	}

	@Test
	void aPlaceholderWrittenInAFileOrOnTheCommandLineIsNamedOnlyByAnEnvironmentVariablesName() {
		assertThat(problemsFor("--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.sessions.secret=kP9#x2${Wq7vLm}Tz4-0123456789abcdef"))
			.extracting(ConfigurationProblem::toString)
			.as("a secret written whole on the command line: the text between its braces is no variable's name")
			.containsExactly("mcp-relay.sessions.secret: " + UNSET);
	}

	@Test
	void shellSyntaxInADottedEnvironmentVariableIsRefused() {
		// cold review A, finding 5: 'mcp-relay.servers.up.authorization=Bearer $GITHUB_TOKEN' started the relay
		var environment = environment("--mcp-relay.servers.up.url=https://example.com/mcp");
		environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
				new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						java.util.Map.of("mcp-relay.servers.up.authorization", "Bearer $GITHUB_TOKEN",
								"spring.data.redis.password", "$REDIS_PASSWORD", "other.key", "$NOT_THE_RELAYS")));

		assertThat(UnresolvedVariables.findInEnvironment(environment)).extracting(ConfigurationProblem::toString)
			.containsExactlyInAnyOrder("environment variable mcp-relay.servers.up.authorization: " + SHELL_SYNTAX,
					"environment variable spring.data.redis.password: " + SHELL_SYNTAX);
	}

	@Test
	void shellSyntaxIsRefusedInEverySpellingSpringBootBinds() {
		// cold review D, finding 4: these three bound mcp-relay.servers.up.authorization and were never checked
		var environment = environment("--mcp-relay.servers.up.url=https://example.com/mcp");
		environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
				new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						java.util.Map.of("MCP-RELAY_SERVERS_UP_AUTHORIZATION", "Bearer $GITHUB_TOKEN",
								"mcp-relay_servers_up_headers_0_value", "Bearer $GITHUB_TOKEN",
								"MCP-RELAY.SERVERS.UP.HEADERS.1.VALUE", "$GITHUB_TOKEN",
								"SPRING_DATA_REDIS_PASSWORD", "$REDIS_PASSWORD",
								"MCP_RELAY_PORT_8080_TCP_ADDR", "$NOT_THE_RELAYS", "MCPRELAYX_A", "$NOT_THE_RELAYS")));
		var binder = org.springframework.boot.context.properties.bind.Binder.get(environment);
		assertThat(binder.bind("mcp-relay.servers.up.authorization", String.class).get()).as("Spring Boot binds them")
			.isEqualTo("Bearer $GITHUB_TOKEN");
		assertThat(binder.bind("mcp-relay.servers.up.headers[0].value", String.class).get()).isEqualTo("Bearer $GITHUB_TOKEN");
		assertThat(binder.bind("mcp-relay.servers.up.headers[1].value", String.class).get()).isEqualTo("$GITHUB_TOKEN");

		assertThat(UnresolvedVariables.findInEnvironment(environment)).extracting(ConfigurationProblem::toString)
			.containsExactlyInAnyOrder("environment variable MCP-RELAY_SERVERS_UP_AUTHORIZATION: " + SHELL_SYNTAX,
					"environment variable mcp-relay_servers_up_headers_0_value: " + SHELL_SYNTAX,
					"environment variable MCP-RELAY.SERVERS.UP.HEADERS.1.VALUE: " + SHELL_SYNTAX,
					"environment variable SPRING_DATA_REDIS_PASSWORD: " + SHELL_SYNTAX);
	}

	@Test
	void shellSyntaxAndUnsetVariablesInSpringApplicationJsonAreRefused() {
		// cold review A, finding 5: SPRING_APPLICATION_JSON's "Bearer $OTHER_TOKEN" was sent as written
		var environment = environment("--mcp-relay.servers.up.url=https://example.com/mcp");
		environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
				new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						java.util.Map.of("SPRING_APPLICATION_JSON", "{\"mcp-relay\":{\"servers\":{\"up\":{\"headers\":"
								+ "[{\"name\":\"X-H\",\"value\":\"Bearer $OTHER_TOKEN\"}]}}},\"management\":{\"x\":"
								+ "\"${MCP_RELAY_TEST_UNSET_JSON}\"}}")));
		new org.springframework.boot.support.SpringApplicationJsonEnvironmentPostProcessor()
			.postProcessEnvironment(environment, new SpringApplication());
		assertThat(environment.getPropertySources().contains("spring.application.json")).isTrue();

		assertThat(UnresolvedVariables.findInEnvironment(environment)).extracting(ConfigurationProblem::toString)
			.as("by the property; nothing of an environment variable's value")
			.containsExactlyInAnyOrder("mcp-relay.servers.up.headers[0].value: " + SHELL_SYNTAX,
					"management.x: " + UNSET);
	}

	@Test
	void aSecretThatBeginsWithADollarIsNeitherRefusedNorPrinted() {
		var environment = environment("--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.sessions.secret=${MCP_RELAY_TEST_DOLLAR_SECRET}",
				"--mcp-relay.servers.a.authorization=${MCP_RELAY_TEST_DOLLAR_TOKEN}");
		// as the environment would give them: not written by the operator, resolved into the values
		environment.getPropertySources().addLast(new org.springframework.core.env.MapPropertySource("variables",
				java.util.Map.of("MCP_RELAY_TEST_DOLLAR_SECRET", "$QM7SECRET", "MCP_RELAY_TEST_DOLLAR_TOKEN",
						"Bearer $QM7TOKEN")));

		assertThat(UnresolvedVariables.findInEnvironment(environment)).as("checked as written: ${...}, set").isEmpty();
		RelayProperties bound = org.springframework.boot.context.properties.bind.Binder.get(environment)
			.bindOrCreate("mcp-relay", RelayProperties.class);
		assertThat(bound.sessions().secret()).isEqualTo("$QM7SECRET");
		assertThat(RelayPropertiesValidator.validate(bound, environment)).extracting(ConfigurationProblem::toString)
			.as("the resolved values are never taken for shell syntax, nor printed")
			.noneMatch(problem -> problem.contains("QM7"));
	}

	@Test
	void aSecretHoldingDollarBracesBehindASetVariableIsNeitherRefusedNorPrinted() {
		var environment = environment("--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.sessions.secret=${MCP_RELAY_TEST_BRACED_SECRET}",
				"--mcp-relay.servers.a.authorization=Bearer ${MCP_RELAY_TEST_BRACED_TOKEN:${MCP_RELAY_TEST_UNSET_TOKEN}}",
				"--mcp-relay.servers.a.headers[0].name=X-Key",
				"--mcp-relay.servers.a.headers[0].value=${MCP_RELAY_TEST_UNSET_KEY:${MCP_RELAY_TEST_BRACED_TOKEN}}",
				"--spring.data.redis.password=${MCP_RELAY_TEST_BRACED_TOKEN}",
				"--mcp-relay.servers.b.url=https://example.com/mcp",
				"--mcp-relay.servers.b.authorization=Bearer ${MCP_RELAY_TEST_UNSET_B:${MCP_RELAY_TEST_UNSET_C}}");
		// as the environment would give them: set, each value holding ${...} as text of its own
		environment.getPropertySources().addLast(new org.springframework.core.env.MapPropertySource("variables",
				java.util.Map.of("MCP_RELAY_TEST_BRACED_SECRET", "kP9#x2${Wq7vLm}Tz4QM7-long-enough-secret-0123456789",
						"MCP_RELAY_TEST_BRACED_TOKEN", "QM7${Token}")));
		RelayProperties bound = org.springframework.boot.context.properties.bind.Binder.get(environment)
			.bindOrCreate("mcp-relay", RelayProperties.class);
		assertThat(bound.sessions().secret()).as("Spring Boot keeps the text it cannot resolve")
			.startsWith("kP9#x2${Wq7vLm}");

		List<ConfigurationProblem> problems = new ArrayList<>(UnresolvedVariables.findInEnvironment(environment));
		problems.addAll(RelayPropertiesValidator.validate(bound, environment));
		assertThat(problems).extracting(ConfigurationProblem::toString)
			.as("only the variables written that are not set, by the names written; never a value's text")
			.containsExactly("mcp-relay.servers.b.authorization: refers to ${MCP_RELAY_TEST_UNSET_C}, which is not set. "
					+ "Set the environment variable MCP_RELAY_TEST_UNSET_C (or give a default: ${MCP_RELAY_TEST_UNSET_C:value})");
	}

	@Test
	void anUnsetVariableAnywhereTheOperatorWroteIsNamedNotSentAsText() {
		var environment = environment("--mcp-relay.servers.a.url=https://example.com/mcp",
				"--management.opentelemetry.tracing.export.otlp.headers.Authorization=Bearer ${MCP_RELAY_TEST_UNSET_OTEL}",
				"--logging.level.root=${MCP_RELAY_TEST_UNSET_LEVEL:info}");
		environment.getPropertySources().addLast(new org.springframework.core.env.MapPropertySource("systemEnvironment",
				java.util.Map.of("PS1", "${debian_chroot:+($debian_chroot)}\\u@\\h")));

		assertThat(UnresolvedVariables.findInEnvironment(environment)).extracting(ConfigurationProblem::toString)
			.as("not the default that resolves, nor an environment variable's own text")
			.containsExactly("management.opentelemetry.tracing.export.otlp.headers.authorization: refers to "
					+ "${MCP_RELAY_TEST_UNSET_OTEL}, which is not set. Set the environment variable MCP_RELAY_TEST_UNSET_OTEL "
					+ "(or give a default: ${MCP_RELAY_TEST_UNSET_OTEL:value})");
	}

	@Test
	void theJvmsOwnSystemPropertiesAreNotTheRelaysConfiguration() {
		var environment = environment("--mcp-relay.servers.a.url=https://example.com/mcp");
		environment.getPropertySources()
			.replace(org.springframework.core.env.StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
					new org.springframework.core.env.PropertiesPropertySource(
							org.springframework.core.env.StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
							properties("sun.java.command", "relay.jar --mcp-relay.sessions.secret=${SESSIONS_SECRET}",
									"java.class.path", "${MCP_RELAY_TEST_UNSET_CP}",
									"spring.application.name", "${MCP_RELAY_TEST_UNSET_NAME}")));

		assertThat(UnresolvedVariables.findInEnvironment(environment)).extracting(ConfigurationProblem::property)
			.as("cold review F: sun.java.command was reported when the command line held ${...}")
			.containsExactly("spring.application.name");
	}

	private static java.util.Properties properties(String... pairs) {
		java.util.Properties properties = new java.util.Properties();
		for (int i = 0; i < pairs.length; i += 2) {
			properties.setProperty(pairs[i], pairs[i + 1]);
		}
		return properties;
	}

	@Test
	void anUnsetVariableInTheStoresAddressIsNamedNotSentToRedis() {
		var environment = environment("--spring.data.redis.url=${MCP_RELAY_TEST_UNSET_URL:redis://:${MCP_RELAY_TEST_UNSET_PASSWORD}@redis:6379}");
		org.springframework.boot.context.properties.source.ConfigurationPropertySources.attach(environment);

		assertThat(UnresolvedVariables.findInEnvironment(environment)).extracting(ConfigurationProblem::toString)
			.containsExactly("spring.data.redis.url: refers to ${MCP_RELAY_TEST_UNSET_PASSWORD}, which is not set. Set the "
					+ "environment variable MCP_RELAY_TEST_UNSET_PASSWORD (or give a default: "
					+ "${MCP_RELAY_TEST_UNSET_PASSWORD:value})");
	}

	@Test
	void springBootTwosRedisPropertiesAreRefusedWithTheirNewNames() {
		var environment = environment("--mcp-relay.sessions.store=redis", "--spring.redis.host=redis.internal",
				"--spring.redis.password=" + SECRET);
		environment.getPropertySources()
			.replace(org.springframework.core.env.StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					new org.springframework.core.env.SystemEnvironmentPropertySource("systemEnvironment",
							java.util.Map.of("SPRING_REDIS_PORT", "6380")));
		org.springframework.boot.context.properties.source.ConfigurationPropertySources.attach(environment);

		assertThat(BootTwoRedisProperties.find(environment)).extracting(ConfigurationProblem::toString).containsExactly(
				"spring.redis.host: is Spring Boot 2's name, which this relay (Spring Boot 4) ignores. Write "
						+ "spring.data.redis.host",
				"spring.redis.password: is Spring Boot 2's name, which this relay (Spring Boot 4) ignores. Write "
						+ "spring.data.redis.password",
				"spring.redis.port (environment variable SPRING_REDIS_PORT): is Spring Boot 2's name, which this relay "
						+ "(Spring Boot 4) ignores. Write spring.data.redis.port (environment variable SPRING_DATA_REDIS_PORT)");
	}

	@Test
	void aDurationWithoutAUnitIsSecondsWhereverItIs() {
		List<String> paths = new java.util.ArrayList<>();
		durations(RelayProperties.class, "mcp-relay", paths);
		assertThat(paths).as("every duration of the tree").hasSizeGreaterThanOrEqualTo(9)
			.contains("mcp-relay.rate-limits[0].period", "mcp-relay.sessions.idle-timeout",
					"mcp-relay.servers.x.timeouts.non-streaming");
		for (String path : paths) {
			java.util.Map<String, Object> leaves = new java.util.HashMap<>();
			BoundPropertyTree.walk("mcp-relay", bind("--" + path + "=7"), leaves::put);
			assertThat(leaves.get(path)).as("%s: 7, the documented unit being seconds (never milliseconds)", path)
				.isEqualTo(java.time.Duration.ofSeconds(7));
		}
	}

	/** The path of every {@code Duration} in the record tree, map keys as {@code x}, list indexes as {@code [0]}. */
	private static void durations(java.lang.reflect.Type type, String path, List<String> paths) {
		Class<?> raw = UnknownRelayProperties.raw(type);
		if (raw == java.time.Duration.class) {
			paths.add(path);
		}
		else if (raw.isRecord()) {
			for (var component : raw.getRecordComponents()) {
				durations(component.getGenericType(), path + "." + UnknownRelayProperties.dashed(component.getName()),
						paths);
			}
		}
		else if (java.util.Map.class.isAssignableFrom(raw)) {
			durations(UnknownRelayProperties.typeArgument(type, 1), path + ".x", paths);
		}
		else if (java.util.List.class.isAssignableFrom(raw)) {
			durations(UnknownRelayProperties.typeArgument(type, 0), path + "[0]", paths);
		}
	}

	@Test
	void anEnvironmentVariableOfTheRelayThatSetsNothingIsNamedWithTheOneToWrite() {
		var environment = environment();
		environment.getPropertySources()
			.replace(org.springframework.core.env.StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					new org.springframework.core.env.SystemEnvironmentPropertySource("systemEnvironment", pairs(
							"MCP_RELAY_SECURITY_MODE", "none", "MCPRELAY_SERVERS_GITHUB_URL", "https://example.com/mcp",
							"MCP_RELAY_SERVERS_GITHUB_MAX_BUFFERED_BODY", "1MB", "MCP_RELAY_SERVERS_JIRA_URL",
							"https://example.com/mcp", "MCPRELAY_SERVERS_GITHUB_URLL", "x", "MCPRELAY_ACCESSLOG_FORMAT", "json",
							"MCP_RELAY_RATE_LIMITS_0_LIMIT", "3", "MCP_RELAY_RATE_LIMITS_0_PERIOD", "60", "PATH", "/bin",
							// Kubernetes' service links for a Service named mcp-relay: not the relay's
							"MCP_RELAY_SERVICE_HOST", "10.0.0.7", "MCP_RELAY_PORT_8080_TCP_ADDR", "10.0.0.7")));
		org.springframework.boot.context.properties.source.ConfigurationPropertySources.attach(environment);

		assertThat(RelayEnvironmentVariables.find(environment)).extracting(ConfigurationProblem::toString).containsExactly(
				"environment variable MCPRELAY_SERVERS_GITHUB_URLL: sets no property of mcp-relay. Write MCPRELAY_ and the "
						+ "property's path with dots as _, dashes removed, in upper case (e.g. "
						+ "MCPRELAY_SERVERS_GITHUB_MAXBUFFEREDBODY for mcp-relay.servers.github.max-buffered-body), or remove "
						+ "it; see the configuration reference in docs/configuration.md",
				"environment variable MCP_RELAY_SERVERS_GITHUB_MAX_BUFFERED_BODY: sets no property of mcp-relay. Write it "
						+ "as MCPRELAY_SERVERS_GITHUB_MAXBUFFEREDBODY (Spring Boot's form: MCPRELAY_, then the property's path "
						+ "with dots as _ and dashes removed)",
				"environment variable MCP_RELAY_SERVERS_JIRA_URL: sets no property of mcp-relay. Write it as "
						+ "MCPRELAY_SERVERS_JIRA_URL (Spring Boot's form: MCPRELAY_, then the property's path with dots as _ "
						+ "and dashes removed)");
		assertThat(RelayEnvironmentVariables.canonical("MCP_RELAY_VIRTUAL_SERVERS_ALL_TOOL_SEARCH_MAX_RESULTS"))
			.isEqualTo("MCPRELAY_VIRTUALSERVERS_ALL_TOOLSEARCH_MAXRESULTS");
		assertThat(RelayEnvironmentVariables.canonical("MCP_RELAY_SECURITY_API_KEYS_1_KEY_SHA256"))
			.isEqualTo("MCPRELAY_SECURITY_APIKEYS_1_KEYSHA256");
	}

	/** Names and values, alternating, as a map in that order. */
	private static java.util.Map<String, Object> pairs(String... pairs) {
		java.util.Map<String, Object> map = new java.util.LinkedHashMap<>();
		for (int i = 0; i < pairs.length; i += 2) {
			map.put(pairs[i], pairs[i + 1]);
		}
		return map;
	}

	@Test
	void aGracePeriodThatShutdownWouldNotWaitForStopsStartUpNamingBothProperties() {
		Throwable failure = startFailing("--mcp-relay.servers.github.url=https://example.com/mcp",
				"--mcp-relay.shutdown.stream-grace-period=30s", "--spring.lifecycle.timeout-per-shutdown-phase=5s");

		assertThat(findCause(failure).problems()).singleElement().satisfies(problem -> {
			assertThat(problem.property()).isEqualTo("mcp-relay.shutdown.stream-grace-period");
			assertThat(problem.toString()).contains("spring.lifecycle.timeout-per-shutdown-phase (PT5S)")
				.contains("without an answer");
		});
	}

	@Test
	void theGracePeriodMustBeShorterThanTheShutdownPhase() {
		assertThat(graceProblems("--mcp-relay.shutdown.stream-grace-period=5s",
				"--spring.lifecycle.timeout-per-shutdown-phase=5s")).as("as long as the phase: it would be cut short")
			.hasSize(1);
		assertThat(graceProblems("--mcp-relay.shutdown.stream-grace-period=4s",
				"--spring.lifecycle.timeout-per-shutdown-phase=5s")).isEmpty();
		assertThat(graceProblems("--mcp-relay.shutdown.stream-grace-period=29s")).as("Spring Boot's own default: 30s")
			.isEmpty();
		assertThat(graceProblems("--mcp-relay.shutdown.stream-grace-period=30s")).hasSize(1);
	}

	private static List<ConfigurationProblem> graceProblems(String... args) {
		return ShutdownTimingValidator.validate(bind(args).shutdown(), environment(args));
	}

	private static List<ConfigurationProblem> problemsFor(String... args) {
		return RelayPropertiesValidator.validate(bind(args), environment(args));
	}

	/** {@link BufferedBodiesValidator#validate} of the configuration {@code args} write, in a heap of {@code heap}. */
	private static void validateBudget(long heap, List<ConfigurationProblem> problems, String... args) {
		var environment = environment(args);
		BufferedBodiesValidator.validate(org.springframework.boot.context.properties.bind.Binder.get(environment)
			.bindOrCreate("mcp-relay", RelayProperties.class), environment, heap, problems);
	}

	private static RelayProperties bind(String... args) {
		return org.springframework.boot.context.properties.bind.Binder.get(environment(args))
			.bindOrCreate("mcp-relay", RelayProperties.class);
	}

	private static org.springframework.core.env.StandardEnvironment environment(String... args) {
		var environment = new org.springframework.core.env.StandardEnvironment();
		environment.getPropertySources().addFirst(new org.springframework.core.env.SimpleCommandLinePropertySource(args));
		// Every relay names its security mode; these tests are about other properties unless they set it themselves.
		environment.getPropertySources()
			.addLast(new org.springframework.core.env.MapPropertySource("mode",
					java.util.Map.of("mcp-relay.security.mode", "none")));
		return environment;
	}

	private static Throwable startFailing(String... args) {
		SpringApplication application = new SpringApplication(McpRelayApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		try {
			application.run(args).close();
		}
		catch (Throwable failure) {
			return failure;
		}
		throw new AssertionError("start-up should have failed");
	}

	private static InvalidRelayConfigurationException findCause(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof InvalidRelayConfigurationException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("no InvalidRelayConfigurationException in " + failure);
	}

}
