package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.OtlpTraceReceiver;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.tracing.McpOperationMeters;
import dev.mcprelay.tracing.TracingSwitch;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.sdk.trace.SdkTracerProvider;

/**
 * Nothing a client sends inflates the relay's telemetry, against a server that answers a call of a tool it does not
 * have with a result ({@code isError: true}), as the TypeScript SDK and many generic servers do
 * ({@code interop/json-rpc-server.mjs}): invented tool names never become tag values, however many calls name them,
 * while the tools the server listed do; and a client's sampled flag is honoured only up to
 * {@code mcp-relay.tracing.client-sampled-traces-per-second} (2 here), beyond the relay's own sampling (none here).
 */
@AutoConfigureMetrics
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.tracing.export.enabled=true", "management.tracing.sampling.probability=0.0",
				"management.opentelemetry.tracing.export.schedule-delay=100ms",
				"mcp-relay.tracing.client-sampled-traces-per-second=2" })
class TelemetryBoundsInteropTest {

	private static final OtlpTraceReceiver RECEIVER = new OtlpTraceReceiver();

	private static NodePeers.NodeServer node;

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@Autowired
	SdkTracerProvider tracerProvider;

	@BeforeAll
	static void startNodeServer() throws Exception {
		NodePeers.requireNode();
		node = NodePeers.startServer("json-rpc-server.mjs");
	}

	@AfterAll
	static void stop() throws Exception {
		if (node != null) {
			node.close();
		}
		RECEIVER.close();
	}

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add(TracingSwitch.OTLP_ENDPOINT, RECEIVER::endpoint);
		registry.add("mcp-relay.servers.node.url", () -> node.url());
	}

	@Test
	void toolNamesBecomeTagValuesOnlyFromTheServersOwnList() {
		RawHttp http = new RawHttp(port);
		int scrapedBefore = scrape().length();
		String padding = "x".repeat(1_000);

		for (int i = 0; i < 120; i++) {
			http.send(http.post("node", RawHttp.toolsCall(i, "invented-" + i + "-" + padding)));
		}
		http.send(http.post("node", "{\"jsonrpc\":\"2.0\",\"id\":\"list\",\"method\":\"tools/list\"}"));
		http.send(http.post("node", RawHttp.toolsCall("real", "echo")));

		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry
			.find(McpOperationMeters.SERVER_DURATION)
			.tag("gen_ai.tool.name", "echo")
			.timer()).as("a tool the server listed is a tag value").isNotNull());
		assertThat(registry.find(McpOperationMeters.SERVER_DURATION).timers())
			.as("a name only a client used is never one, though the server answered each call with a result")
			.noneMatch(timer -> timer.getId().getTag("gen_ai.tool.name").startsWith("invented"));
		assertThat(scrape().length() - scrapedBefore).as("120 invented names of 1 KB cost the scrape nothing per name")
			.isLessThan(60_000);
	}

	@Test
	void aClientsSampledFlagIsHonouredOnlyUpToTheCeiling() {
		RawHttp http = new RawHttp(port);
		Set<String> traces = new HashSet<>();
		long start = System.nanoTime();

		for (int i = 0; i < 20; i++) {
			String trace = String.format("%032x", 0x4bf92f3577b34da6L + i);
			traces.add(trace);
			http.send(http.post("node", RawHttp.toolsCall("sampled-" + i, "echo"))
				.header("traceparent", "00-" + trace + "-00f067aa0ba902b7-01"));
		}
		long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
		tracerProvider.forceFlush().join(10, TimeUnit.SECONDS);

		long kept = RECEIVER.spans()
			.stream()
			.filter(span -> "mcp-relay".equals(span.service()) && traces.contains(span.traceId())
					&& span.span().getKind() == io.opentelemetry.proto.trace.v1.Span.SpanKind.SPAN_KIND_SERVER)
			.count();
		assertThat(kept).as("the first of the second is kept, as the client asked").isPositive();
		assertThat(kept).as("at most 2 a second of the %s seconds the calls took, not all 20", seconds + 1)
			.isLessThanOrEqualTo(2 * (seconds + 2));
	}

	private String scrape() {
		HttpResponse<String> response = new RawHttp(port).send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus")));
		assertThat(response.statusCode()).isEqualTo(200);
		return response.body();
	}

}
