package dev.mcprelay.testsupport;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Base of the integration tests: the relay on a random port in front of the shared {@link TestUpstreams}. One
 * Spring context serves every subclass. Servers:
 * <ul>
 * <li>{@code sdk}: the SDK's Streamable HTTP server (SSE answers);</li>
 * <li>{@code sdk-json}: the SDK's stateless server (JSON answers); neither with a reserved argument prefix;</li>
 * <li>{@code scripted}: the scripted upstream, with 1s timeouts (2s for a client that stops reading) and a 64KB
 * body cap, for the tests of those bounds;</li>
 * <li>{@code scripted-default-timeouts}: the scripted upstream with the default timeouts, for tests that do not test
 * time (a 1 s bound there is crossed by a busy machine, not by the relay);</li>
 * <li>{@code scripted-stalled-client}: the scripted upstream with a 1 s streaming-idle bound and a 2 s client-write
 * bound, and the default for the answer's head (a 1 s bound there is crossed by a busy machine, not by the relay);</li>
 * <li>{@code scripted-patient-client}: the same with a 30 s client-write bound, for a client that pauses longer than
 * the idle bound and, by a wide margin on any machine, shorter than the client-write bound;</li>
 * <li>{@code scripted-headers}: the scripted upstream with configured authorization and headers;</li>
 * <li>{@code refused}: a port nothing listens on.</li>
 * </ul>
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
public abstract class RelayIntegrationTest {

	public static final String UPSTREAM_TOKEN = "Bearer upstream-secret-token-4711";

	public static final String STATIC_KEY = "static-secret-key-0815";

	public static final String QUERY_SECRET = "query-secret-0042";

	@LocalServerPort
	protected int port;

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.sdk.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
		// This context checks that the relay is faithful; the reserved-prefix policy, which changes published schemas
		// by design, is checked in ArgumentPolicyTest.
		registry.add("mcp-relay.servers.sdk.arguments.reserved-prefix", () -> "");
		registry.add("mcp-relay.servers.sdk-json.arguments.reserved-prefix", () -> "");
		registry.add("mcp-relay.servers.scripted.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.servers.scripted.timeouts.non-streaming", () -> "1s");
		registry.add("mcp-relay.servers.scripted.timeouts.streaming-idle", () -> "1s");
		registry.add("mcp-relay.servers.scripted.timeouts.client-write", () -> "2s");
		registry.add("mcp-relay.servers.scripted.max-buffered-body", () -> "64KB");
		registry.add("mcp-relay.servers.scripted-default-timeouts.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.servers.scripted-stalled-client.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.servers.scripted-stalled-client.timeouts.streaming-idle", () -> "1s");
		registry.add("mcp-relay.servers.scripted-stalled-client.timeouts.client-write", () -> "2s");
		registry.add("mcp-relay.servers.scripted-patient-client.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.servers.scripted-patient-client.timeouts.streaming-idle", () -> "1s");
		registry.add("mcp-relay.servers.scripted-patient-client.timeouts.client-write", () -> "30s");
		registry.add("mcp-relay.servers.scripted-headers.url", () -> TestUpstreams.SCRIPTED.url("/mcp?key=" + QUERY_SECRET));
		registry.add("mcp-relay.servers.scripted-headers.authorization", () -> UPSTREAM_TOKEN);
		registry.add("mcp-relay.servers.scripted-headers.headers[0].name", () -> "X-Api-Key");
		registry.add("mcp-relay.servers.scripted-headers.headers[0].value", () -> STATIC_KEY);
		registry.add("mcp-relay.servers.scripted-headers.headers[1].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.scripted-headers.headers[1].from-request-header", () -> "X-Client-Tenant");
		registry.add("mcp-relay.servers.scripted-headers.headers[1].required", () -> "true");
		registry.add("mcp-relay.servers.scripted-headers.headers[2].name", () -> "X-Trace");
		registry.add("mcp-relay.servers.scripted-headers.headers[2].from-request-header", () -> "X-Client-Trace");
		registry.add("mcp-relay.servers.refused.url", () -> "http://127.0.0.1:" + TestUpstreams.REFUSED_PORT + "/mcp");
		registry.add("mcp-relay.servers.refused.timeouts.non-streaming", () -> "2s");
		registry.add("mcp-relay.allowed-origins[0]", () -> "https://app.example.com");
	}

	protected String relayUrl(String server) {
		return "http://127.0.0.1:" + port + "/mcp/" + server;
	}

	protected RawHttp http() {
		return new RawHttp(port);
	}

}
