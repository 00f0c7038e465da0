package dev.mcprelay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

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
		RelayProperties properties = bind("--mcp-relay.servers.a.url=https://example.com/mcp");
		ServerProperties server = properties.servers().get("a");
		assertThat(server.timeouts().nonStreaming()).hasSeconds(60);
		assertThat(server.timeouts().streamingIdle()).hasSeconds(60);
		assertThat(server.maxBufferedBody().toMegabytes()).isEqualTo(50);
		assertThat(server.headers()).isEmpty();
		assertThat(RelayPropertiesValidator.validate(properties)).isEmpty();
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
		return RelayPropertiesValidator.validate(bind(args));
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
