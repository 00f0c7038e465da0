package dev.mcprelay.testsupport;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Base of the interceptor tests: the relay on a random port with two {@link ScriptedInterceptor}s at every stage,
 * {@code first} (order 10) and {@code second} (order 20), programmed per test through {@link #script}. One Spring
 * context serves every subclass. Servers:
 * <ul>
 * <li>{@code sdk}: the SDK's Streamable HTTP server (SSE answers); {@code sdk-json}: its stateless one (JSON);</li>
 * <li>{@code sdk-notify}: {@code sdk} whose client is told of rejected server requests
 * ({@code rejected-server-requests: notify});</li>
 * <li>{@code sdk-idle}: {@code sdk} with a 1s streaming-idle bound; {@code sdk-json-slow}: {@code sdk-json} with a 1s
 * non-streaming bound;</li>
 * <li>{@code sdk-tools} ({@code tools.deny: secret_*}) and {@code sdk-json-tools} ({@code tools.allow: echo,
 * secret_*}, {@code tools.deny: secret_admin});</li>
 * <li>{@code sdk-args} ({@code _tenant} from the X-Tenant header, {@code region: eu} and {@code locale} from the
 * X-Locale header into {@code who*}; virtual server {@code args-v} has it as its one member),
 * {@code sdk-json-args} ({@code _tenant: acme}) and {@code sdk-json-open} (no reserved prefix);</li>
 * <li>{@code scripted}: the scripted upstream; {@code scripted-tools}: the same with {@code tools.deny: secret_*};
 * {@code refused}: a port nothing listens on.</li>
 * </ul>
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(InterceptorIntegrationTest.ScriptedInterceptors.class)
public abstract class InterceptorIntegrationTest {

	@TestConfiguration(proxyBeanMethods = false)
	static class ScriptedInterceptors {

		@Bean
		InterceptorScript interceptorScript() {
			return new InterceptorScript();
		}

		@Bean
		ScriptedInterceptor firstInterceptor(InterceptorScript script) {
			return new ScriptedInterceptor("first", 10, script);
		}

		@Bean
		ScriptedInterceptor secondInterceptor(InterceptorScript script) {
			return new ScriptedInterceptor("second", 20, script);
		}

	}

	@LocalServerPort
	protected int port;

	@Autowired
	protected InterceptorScript script;

	protected final SdkMcpUpstream upstream = TestUpstreams.SDK;

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.sdk.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-notify.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.sdk-notify.rejected-server-requests", () -> "notify");
		registry.add("mcp-relay.servers.sdk-idle.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.sdk-idle.timeouts.streaming-idle", () -> "1s");
		registry.add("mcp-relay.servers.sdk-json-slow.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-json-slow.timeouts.non-streaming", () -> "1s");
		registry.add("mcp-relay.servers.sdk-tools.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.sdk-tools.tools.deny[0]", () -> "secret_*");
		registry.add("mcp-relay.servers.sdk-json-tools.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-json-tools.tools.allow[0]", () -> "echo");
		registry.add("mcp-relay.servers.sdk-json-tools.tools.allow[1]", () -> "secret_*");
		registry.add("mcp-relay.servers.sdk-json-tools.tools.deny[0]", () -> "secret_admin");
		registry.add("mcp-relay.servers.sdk-args.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.virtual-servers.args-v.members[0]", () -> "sdk-args");
		registry.add("mcp-relay.servers.sdk-args.arguments.inject[0].name", () -> "_tenant");
		registry.add("mcp-relay.servers.sdk-args.arguments.inject[0].from-request-header", () -> "X-Tenant");
		registry.add("mcp-relay.servers.sdk-args.arguments.inject[1].name", () -> "region");
		registry.add("mcp-relay.servers.sdk-args.arguments.inject[1].value", () -> "eu");
		registry.add("mcp-relay.servers.sdk-args.arguments.inject[1].tools[0]", () -> "who*");
		registry.add("mcp-relay.servers.sdk-args.arguments.inject[2].name", () -> "locale");
		registry.add("mcp-relay.servers.sdk-args.arguments.inject[2].from-request-header", () -> "X-Locale");
		registry.add("mcp-relay.servers.sdk-args.arguments.inject[2].tools[0]", () -> "who*");
		registry.add("mcp-relay.servers.sdk-json-args.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-json-args.arguments.inject[0].name", () -> "_tenant");
		registry.add("mcp-relay.servers.sdk-json-args.arguments.inject[0].value", () -> "acme");
		registry.add("mcp-relay.servers.sdk-json-open.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-json-open.arguments.reserved-prefix", () -> "");
		registry.add("mcp-relay.servers.scripted.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		// the scripted upstream with the default timeouts, for tests that do not test time: a cold first exchange on a
		// loaded machine can take seconds, and scripted's 2 s bounds (for the tests of stalls) would answer it
		registry.add("mcp-relay.servers.scripted-untimed.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.servers.scripted-tools.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.servers.scripted-tools.tools.deny[0]", () -> "secret_*");
		registry.add("mcp-relay.servers.scripted.timeouts.non-streaming", () -> "2s");
		registry.add("mcp-relay.servers.scripted.timeouts.streaming-idle", () -> "2s");
		registry.add("mcp-relay.servers.refused.url", () -> "http://127.0.0.1:" + TestUpstreams.REFUSED_PORT + "/mcp");
	}

	@BeforeEach
	void resetScriptAndUpstreams() {
		script.reset();
		upstream.clearSeen();
		upstream.resetProgressGate();
		TestUpstreams.SCRIPTED.clear();
	}

	@AfterEach
	void releaseUpstreams() {
		script.reset();
		upstream.releaseProgress();
	}

	protected RawHttp http() {
		return new RawHttp(port);
	}

	/** An initialized MCP session with {@code server}, over raw HTTP. */
	protected McpSession session(String server) {
		return McpSession.open(http(), server);
	}

	/** The JSON-RPC messages the SDK upstream received with {@code method}, in order. */
	protected List<JsonNode> upstreamReceived(String method) {
		return upstream.seen()
			.stream()
			.filter(seen -> seen.method().equals("POST"))
			.map(SdkMcpUpstream.Seen::json)
			.filter(body -> method.equals(body.path("method").asText()))
			.toList();
	}

	protected static List<JsonNode> messages(HttpResponse<String> response) {
		return RawHttp.messagesOf(response);
	}

}
