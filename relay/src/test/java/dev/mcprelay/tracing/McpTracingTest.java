package dev.mcprelay.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.OtlpTraceReceiver;
import dev.mcprelay.testsupport.OtlpTraceReceiver.ReceivedSpan;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

/**
 * Traces in MCP's own terms, exported by OTLP to a real endpoint ({@link OtlpTraceReceiver}, which decodes them with
 * the OpenTelemetry protobuf model), in front of a real MCP server (the Java SDK's) that makes its own span from the
 * context the relay hands it, as an instrumented upstream would.
 */
@AutoConfigureMetrics
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = {
				// the endpoint comes later than start-up's own configuration (a dynamic property): tracing is asked for
				"management.tracing.export.enabled=true",
				"management.tracing.sampling.probability=1.0",
				"management.opentelemetry.tracing.export.schedule-delay=100ms",
				"mcp-relay.servers.sdk.arguments.reserved-prefix=",
				"mcp-relay.servers.sdk.arguments.inject[0].name=region",
				"mcp-relay.servers.sdk.arguments.inject[0].value=eu",
				"mcp-relay.servers.sdk.tools.deny[0]=secret_admin",
				"mcp-relay.servers.sdk.authorization=Bearer " + McpTracingTest.UPSTREAM_SECRET })
class McpTracingTest {

	private static final OtlpTraceReceiver RECEIVER = new OtlpTraceReceiver();

	private static final SdkMcpUpstream UPSTREAM = new SdkMcpUpstream();

	private static final SdkTracerProvider UPSTREAM_TRACING = SdkTracerProvider.builder()
		.setResource(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "sdk-upstream")))
		.addSpanProcessor(SimpleSpanProcessor.create(OtlpHttpSpanExporter.builder().setEndpoint(RECEIVER.endpoint()).build()))
		.build();

	private static final TextMapGetter<Map<String, Object>> META = new TextMapGetter<>() {

		@Override
		public Iterable<String> keys(Map<String, Object> carrier) {
			return carrier.keySet();
		}

		@Override
		public String get(Map<String, Object> carrier, String key) {
			Object value = carrier == null ? null : carrier.get(key);
			return value instanceof String text ? text : null;
		}

	};

	static final String UPSTREAM_SECRET = "upstream-secret-4711";

	private static final String CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

	private static final String CLIENT_SPAN = "00f067aa0ba902b7";

	private static final Duration WITHIN = Duration.ofSeconds(10);

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@Autowired
	org.springframework.context.ApplicationContext context;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add(TracingSwitch.OTLP_ENDPOINT, RECEIVER::endpoint);
		registry.add("mcp-relay.servers.sdk.url", () -> UPSTREAM.url("/mcp"));
	}

	@AfterAll
	static void close() throws Exception {
		UPSTREAM_TRACING.close();
		UPSTREAM.close();
		RECEIVER.close();
	}

	@BeforeEach
	void upstreamTracesItsToolCalls() {
		io.opentelemetry.api.trace.Tracer tracer = UPSTREAM_TRACING.get("sdk-upstream");
		UPSTREAM.observeToolCalls(request -> {
			Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), request.meta(), META);
			tracer.spanBuilder("tools/call " + request.name())
				.setParent(parent)
				.setSpanKind(io.opentelemetry.api.trace.SpanKind.SERVER)
				.startSpan()
				.end();
		});
		UPSTREAM.clearSeen();
	}

	@Test
	void aToolCallIsOneTraceFromTheClientThroughTheInterceptorThatChangedItToTheUpstreamsOwnSpan() {
		McpSession session = McpSession.open(http(), "sdk");
		HttpResponse<String> answer = http().send(session
			.request(RawHttp.toolsCall("traced-1", "echo"))
			.header("traceparent", "00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01"));
		assertThat(answer.statusCode()).isEqualTo(200);

		ReceivedSpan server = RECEIVER.await(span -> isRelay(span) && "traced-1".equals(span.attribute("jsonrpc.request.id"))
				&& span.span().getKind() == SpanKind.SPAN_KIND_SERVER, WITHIN);
		assertThat(server.name()).isEqualTo("tools/call echo");
		assertThat(server.traceId()).as("the client's trace is continued").isEqualTo(CLIENT_TRACE);
		assertThat(server.parentSpanId()).isEqualTo(CLIENT_SPAN);
		assertThat(server.attribute("mcp.method.name")).isEqualTo("tools/call");
		assertThat(server.attribute("gen_ai.tool.name")).isEqualTo("echo");
		assertThat(server.attribute("gen_ai.operation.name")).isEqualTo("execute_tool");
		assertThat(server.attribute("jsonrpc.request.id")).isEqualTo("traced-1");
		assertThat(server.attribute("mcp.protocol.version")).isEqualTo(McpSession.PROTOCOL_VERSION);
		assertThat(server.attribute("mcp_relay.server")).isEqualTo("sdk");
		assertThat(server.attribute("network.transport")).isEqualTo("tcp");
		assertThat(server.attribute("mcp.session.id")).as("a digest, never the session id itself")
			.matches("[0-9a-f]{32}")
			.isNotEqualTo(session.id());
		assertThat(server.attribute("error.type")).isNull();

		ReceivedSpan interceptor = RECEIVER.await(span -> isRelay(span) && span.traceId().equals(CLIENT_TRACE)
				&& span.parentSpanId().equals(server.spanId()) && span.name().startsWith("interceptors "), WITHIN);
		assertThat(interceptor.name()).isEqualTo("interceptors tools-call-request");
		assertThat(interceptor.attribute("mcp_relay.interceptor.outcome")).isEqualTo("changed");
		assertThat(interceptor.attribute("mcp_relay.interceptor.name")).isEqualTo("arguments");

		ReceivedSpan client = RECEIVER.await(span -> isRelay(span) && span.parentSpanId().equals(server.spanId())
				&& span.span().getKind() == SpanKind.SPAN_KIND_CLIENT, WITHIN);
		assertThat(client.name()).isEqualTo("tools/call echo");
		assertThat(client.traceId()).isEqualTo(CLIENT_TRACE);
		assertThat(client.attribute("server.address")).isEqualTo("127.0.0.1");
		assertThat(client.attribute("server.port")).isEqualTo(String.valueOf(java.net.URI.create(UPSTREAM.url("/mcp")).getPort()));

		ReceivedSpan upstream = RECEIVER.await(span -> "sdk-upstream".equals(span.service())
				&& span.parentSpanId().equals(client.spanId()), WITHIN);
		assertThat(upstream.traceId()).as("the upstream's own span is a child of the relay's client span")
			.isEqualTo(CLIENT_TRACE);

		SdkMcpUpstream.Seen seen = toolCallSeen("traced-1");
		String sent = "00-" + CLIENT_TRACE + "-" + client.spanId() + "-01";
		assertThat(seen.headers().getFirst("traceparent")).as("in the HTTP headers").isEqualTo(sent);
		assertThat(seen.json().path("params").path("_meta").path("traceparent").asText()).as("in params._meta")
			.isEqualTo(sent);
		assertThat(seen.json().path("params").path("arguments").path("region").asText()).isEqualTo("eu");

		await().atMost(WITHIN).until(() -> CapturedLogs.all().stream()
			.anyMatch(line -> line.contains("mcp.relay.access") && line.contains("id=traced-1")
					&& line.endsWith("trace_id=" + CLIENT_TRACE)));
	}

	@Test
	void aContextInParamsMetaWinsOverTheHeadersAndOnlyItsTraceparentIsReplacedUpstream() {
		McpSession session = McpSession.open(http(), "sdk");
		String metaTrace = "0af7651916cd43dd8448eb211c80319c";
		String body = "{\"jsonrpc\":\"2.0\",\"id\":\"meta-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"message\":\"m\",\"n\":1.50},\"_meta\":{\"progressToken\":7,\"traceparent\":\"00-"
				+ metaTrace + "-b7ad6b7169203331-01\",\"tracestate\":\"rojo=00f067aa0ba902b7\",\"vendor.example/k\":\"v\"}}}";
		HttpResponse<String> answer = http().send(session.request(body)
			.header("traceparent", "00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01"));
		assertThat(answer.statusCode()).isEqualTo(200);

		ReceivedSpan server = RECEIVER.await(span -> isRelay(span) && span.traceId().equals(metaTrace)
				&& span.span().getKind() == SpanKind.SPAN_KIND_SERVER, WITHIN);
		assertThat(server.parentSpanId()).isEqualTo("b7ad6b7169203331");
		assertThat(server.span().getLinksList()).as("the HTTP request's context, linked")
			.anyMatch(link -> OtlpTraceReceiver.hex(link.getTraceId().toByteArray()).equals(CLIENT_TRACE)
					&& OtlpTraceReceiver.hex(link.getSpanId().toByteArray()).equals(CLIENT_SPAN));
		ReceivedSpan client = RECEIVER.await(span -> isRelay(span) && span.traceId().equals(metaTrace)
				&& span.span().getKind() == SpanKind.SPAN_KIND_CLIENT, WITHIN);

		JsonNode meta = toolCallSeen("meta-1").json().path("params").path("_meta");
		assertThat(meta.path("traceparent").asText()).isEqualTo("00-" + metaTrace + "-" + client.spanId() + "-01");
		assertThat(meta.path("tracestate").asText()).isEqualTo("rojo=00f067aa0ba902b7");
		assertThat(meta.path("progressToken").asInt()).isEqualTo(7);
		assertThat(meta.path("vendor.example/k").asText()).isEqualTo("v");
		assertThat(toolCallSeen("meta-1").body()).contains("\"n\":1.50");
	}

	@Test
	void aMalformedContextIsIgnoredAndANewTraceStarts() {
		McpSession session = McpSession.open(http(), "sdk");
		String body = "{\"jsonrpc\":\"2.0\",\"id\":\"bad-ctx\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"message\":\"m\"},\"_meta\":{\"traceparent\":\"00-not-a-context-01\"}}}";
		HttpResponse<String> answer = http().send(session.request(body).header("traceparent", "garbage"));
		assertThat(answer.statusCode()).isEqualTo(200);
		assertThat(RawHttp.messagesOf(answer).get(0).path("result").path("content").get(0).path("text").asText())
			.isEqualTo("m");

		ReceivedSpan server = RECEIVER.await(span -> isRelay(span) && "bad-ctx".equals(span.attribute("jsonrpc.request.id"))
				&& span.span().getKind() == SpanKind.SPAN_KIND_SERVER, WITHIN);
		assertThat(server.parentSpanId()).as("a root: neither context was taken").isEmpty();
		assertThat(toolCallSeen("bad-ctx").json().path("params").path("_meta").path("traceparent").asText())
			.startsWith("00-" + server.traceId() + "-");
	}

	@Test
	void aMetaThatIsNoObjectIsLeftAlone() {
		McpSession session = McpSession.open(http(), "sdk");
		String body = "{\"jsonrpc\":\"2.0\",\"id\":\"odd-meta\",\"method\":\"tools/list\",\"params\":{\"_meta\":\"x\"}}";
		http().send(session.request(body));

		ReceivedSpan server = RECEIVER.await(span -> isRelay(span) && "odd-meta".equals(span.attribute("jsonrpc.request.id"))
				&& span.span().getKind() == SpanKind.SPAN_KIND_SERVER, WITHIN);
		SdkMcpUpstream.Seen seen = UPSTREAM.seen().stream().filter(s -> s.body().contains("odd-meta")).findFirst().orElseThrow();
		assertThat(seen.body()).as("byte for byte").isEqualTo(body);
		assertThat(seen.headers().getFirst("traceparent")).startsWith("00-" + server.traceId() + "-");
	}

	@Test
	void aRejectedCallIsAnErrorSpanWithTheInterceptorsSpanAndNoTripUpstream() {
		McpSession session = McpSession.open(http(), "sdk");
		HttpResponse<String> answer = session.post(RawHttp.toolsCall("denied-1", "secret_admin"));
		int code = RawHttp.messagesOf(answer).get(0).path("error").path("code").asInt();

		ReceivedSpan server = RECEIVER.await(span -> isRelay(span) && "denied-1".equals(span.attribute("jsonrpc.request.id"))
				&& span.span().getKind() == SpanKind.SPAN_KIND_SERVER, WITHIN);
		assertThat(server.name()).isEqualTo("tools/call secret_admin");
		assertThat(server.attribute("error.type")).isEqualTo(String.valueOf(code));
		assertThat(server.attribute("rpc.response.status_code")).isEqualTo(String.valueOf(code));
		assertThat(server.span().getStatus().getCode())
			.isEqualTo(io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR);
		ReceivedSpan interceptor = RECEIVER.await(span -> isRelay(span) && span.traceId().equals(server.traceId())
				&& span.name().startsWith("interceptors "), WITHIN);
		assertThat(interceptor.attribute("mcp_relay.interceptor.outcome")).isEqualTo("rejected");
		assertThat(interceptor.attribute("mcp_relay.interceptor.name")).isEqualTo("policy");
		assertThat(interceptor.attribute("mcp_relay.refusal.reason")).as("for the operator").isEqualTo("policy_denied");
		assertThat(interceptor.attribute("mcp_relay.refusal.detail")).isNotBlank();
		assertThat(RECEIVER.spans()).noneMatch(span -> span.traceId().equals(server.traceId())
				&& span.span().getKind() == SpanKind.SPAN_KIND_CLIENT);
	}

	@Test
	void anInterceptorThatChangedTheUpstreamsAnswerHasItsSpanUnderTheRequestsServerSpan() {
		McpSession session = McpSession.open(http(), "sdk");
		HttpResponse<String> answer = session.post("{\"jsonrpc\":\"2.0\",\"id\":\"list-1\",\"method\":\"tools/list\"}");
		assertThat(answer.body()).doesNotContain("secret_admin");

		ReceivedSpan server = RECEIVER.await(span -> isRelay(span) && "list-1".equals(span.attribute("jsonrpc.request.id"))
				&& span.span().getKind() == SpanKind.SPAN_KIND_SERVER, WITHIN);
		assertThat(server.name()).isEqualTo("tools/list");
		assertThat(server.attribute("error.type")).isNull();
		ReceivedSpan interceptor = RECEIVER.await(span -> isRelay(span) && span.parentSpanId().equals(server.spanId())
				&& span.name().startsWith("interceptors "), WITHIN);
		assertThat(interceptor.name()).isEqualTo("interceptors tools-list-response");
		assertThat(interceptor.attribute("mcp_relay.interceptor.outcome")).isEqualTo("changed");
		assertThat(interceptor.attribute("mcp_relay.interceptor.name")).isEqualTo("policy");
	}

	@Test
	void aSamplingRequestOnTheCallsStreamIsAnEventAndCarriesTheContextBackToTheClient() throws Exception {
		McpSession session = McpSession.open(http(), "sdk", "{\"sampling\":{}}");
		HttpResponse<java.io.InputStream> stream = http().open(session.request(RawHttp.toolsCall("ask-1", "ask-model"))
			.header("traceparent", "00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01"));
		try (java.io.BufferedReader events = new java.io.BufferedReader(
				new java.io.InputStreamReader(stream.body(), java.nio.charset.StandardCharsets.UTF_8))) {
			JsonNode sampling = nextMessage(events);
			assertThat(sampling.path("method").asText()).isEqualTo("sampling/createMessage");
			assertThat(sampling.path("params").path("_meta").path("traceparent").asText())
				.as("the relay's context, carried back to the client").startsWith("00-" + CLIENT_TRACE + "-");
			session.post("{\"jsonrpc\":\"2.0\",\"id\":" + sampling.get("id") + ",\"result\":{\"role\":\"assistant\","
					+ "\"content\":{\"type\":\"text\",\"text\":\"hello\"},\"model\":\"test-model\"}}");
			assertThat(nextMessage(events).path("id").asText()).isEqualTo("ask-1");
		}
		ReceivedSpan server = RECEIVER.await(span -> isRelay(span) && "ask-1".equals(span.attribute("jsonrpc.request.id"))
				&& span.span().getKind() == SpanKind.SPAN_KIND_SERVER, WITHIN);
		assertThat(server.traceId()).isEqualTo(CLIENT_TRACE);
		assertThat(server.eventNames()).contains("sampling/createMessage");
	}

	/** The next message event's data on an event stream. */
	private static JsonNode nextMessage(java.io.BufferedReader events) throws java.io.IOException {
		StringBuilder data = new StringBuilder();
		String line;
		while ((line = events.readLine()) != null) {
			if (line.startsWith("data:")) {
				data.append(line.substring(5).strip());
			}
			else if (line.isEmpty() && !data.isEmpty()) {
				return RawHttp.json(data.toString());
			}
		}
		throw new AssertionError("the stream ended");
	}

	@Test
	void aCallThatNeverGotItsAnswerEndsBothSpansAsFailed() throws Exception {
		McpSession session = McpSession.open(http(), "sdk");
		String body = "{\"jsonrpc\":\"2.0\",\"id\":\"gone-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"progress\","
				+ "\"arguments\":{},\"_meta\":{\"progressToken\":\"p-1\"}}}";
		HttpResponse<java.io.InputStream> stream = http().open(session.request(body));
		try (java.io.BufferedReader events = new java.io.BufferedReader(
				new java.io.InputStreamReader(stream.body(), java.nio.charset.StandardCharsets.UTF_8))) {
			assertThat(nextMessage(events).path("method").asText()).isEqualTo("notifications/progress");
		}
		try {
			ReceivedSpan server = RECEIVER.await(span -> isRelay(span) && "gone-1".equals(span.attribute("jsonrpc.request.id"))
					&& span.span().getKind() == SpanKind.SPAN_KIND_SERVER, WITHIN);
			assertThat(server.attribute("error.type")).isEqualTo("no_answer");
			assertThat(server.eventNames()).as("the progress notification on the call's stream").contains("notifications/progress");
			ReceivedSpan client = RECEIVER.await(span -> isRelay(span) && span.parentSpanId().equals(server.spanId())
					&& span.span().getKind() == SpanKind.SPAN_KIND_CLIENT, WITHIN);
			assertThat(client.attribute("error.type")).isEqualTo("no_answer");
		}
		finally {
			UPSTREAM.releaseProgress();
		}
	}

	@Test
	void anOtlpEndpointThatRefusesEveryExportCostsTheCallsNothing() {
		RECEIVER.failWith(503);
		try {
			McpSession session = McpSession.open(http(), "sdk");
			for (int i = 0; i < 5; i++) {
				HttpResponse<String> answer = session.post(RawHttp.toolsCall("refused-export-" + i, "echo"));
				assertThat(answer.statusCode()).isEqualTo(200);
				assertThat(answer.body()).contains("\"refused-export-" + i + "\"").doesNotContain("\"error\"");
			}
		}
		finally {
			RECEIVER.failWith(0);
		}
	}

	@Test
	void noSpanCarriesACredentialOrTheSessionId() {
		McpSession session = McpSession.open(http(), "sdk");
		http().send(session.request(RawHttp.toolsCall("secret-1", "echo"))
			.header("Authorization", "Bearer client-secret-0815")
			.header("X-Api-Key", "client-key-0816"));

		ReceivedSpan client = RECEIVER.await(span -> isRelay(span) && "secret-1".equals(span.attribute("jsonrpc.request.id"))
				&& span.span().getKind() == SpanKind.SPAN_KIND_CLIENT, WITHIN);
		assertThat(UPSTREAM.seen()).as("the upstream got its credential")
			.anyMatch(seen -> ("Bearer " + UPSTREAM_SECRET).equals(seen.headers().getFirst("Authorization")));
		assertThat(RECEIVER.spans().stream().filter(span -> span.traceId().equals(client.traceId())))
			.isNotEmpty()
			.allSatisfy(span -> assertThat(span.span().toString()).doesNotContain(UPSTREAM_SECRET)
				.doesNotContain("client-secret-0815")
				.doesNotContain("client-key-0816")
				.doesNotContain(session.id()));
	}

	@Test
	void theOperationHistogramsCarryTheConventionsNamesAndBoundedTags() {
		McpSession session = McpSession.open(http(), "sdk");
		session.post("{\"jsonrpc\":\"2.0\",\"id\":\"hist-0\",\"method\":\"tools/list\"}");
		session.post(RawHttp.toolsCall("hist-1", "echo"));
		session.post(RawHttp.toolsCall("hist-2", "no-such-tool-" + System.nanoTime()));

		await().atMost(WITHIN).untilAsserted(() -> assertThat(registry.find(McpOperationMeters.SERVER_DURATION)
			.tag("mcp.method.name", "tools/call")
			.tag("gen_ai.tool.name", "echo")
			.tag("server", "sdk")
			.timer()).isNotNull());
		assertThat(registry.find(McpOperationMeters.CLIENT_DURATION).tag("gen_ai.tool.name", "echo").timer())
			.isNotNull();
		HttpResponse<String> scrape = http().send(java.net.http.HttpRequest.newBuilder(
				java.net.URI.create("http://127.0.0.1:" + port + "/actuator/prometheus")));
		assertThat(scrape.statusCode()).isEqualTo(200);
		String scraped = scrape.body();
		assertThat(scraped).containsPattern("mcp_server_operation_duration_seconds_bucket\\{[^}]*error_type=\"\"[^}]*"
				+ "gen_ai_tool_name=\"echo\"[^}]*mcp_method_name=\"tools/call\"[^}]*le=\"0\\.01\"");
		assertThat(registry.find(McpOperationMeters.SERVER_DURATION).timers())
			.as("a tool the server does not know is no tag value")
			.noneMatch(timer -> timer.getId().getTag("gen_ai.tool.name").startsWith("no-such-tool"));
	}

	@Test
	void aClientsLongNamesAreCutInSpanNamesAndAttributes() {
		McpSession session = McpSession.open(http(), "sdk");
		String id = "long-" + "i".repeat(20_000);
		String tool = "t".repeat(20_000);

		session.post(RawHttp.toolsCall(id, tool));

		ReceivedSpan server = RECEIVER.await(span -> isRelay(span) && span.span().getKind() == SpanKind.SPAN_KIND_SERVER
				&& span.attribute("jsonrpc.request.id") != null && span.attribute("jsonrpc.request.id").startsWith("long-"),
				WITHIN);
		assertThat(server.name()).as("a span name is cut to 128 characters, then marked").hasSize(131)
			.startsWith("tools/call ttt").endsWith("t...");
		assertThat(server.span().getAttributesList()).as("so is every attribute value taken from the message")
			.allSatisfy(attribute -> assertThat(attribute.getValue().getStringValue()).hasSizeLessThanOrEqualTo(131));
		assertThat(server.attribute("gen_ai.tool.name")).isEqualTo("t".repeat(128) + "...");
	}

	@Test
	void theRelaysSpanProcessorIsTheOnlyOneAndCountsWhatItExports() {
		assertThat(context.getBeansOfType(io.opentelemetry.sdk.trace.export.BatchSpanProcessor.class))
			.as("Spring Boot's processor stands back: a second would export every span twice")
			.containsOnlyKeys("relaySpanProcessor");
		McpSession.open(http(), "sdk");

		await().atMost(WITHIN).untilAsserted(() -> assertThat(registry.get(SpanExportMeters.SPANS)
			.tag("outcome", "exported")
			.counter()
			.count()).isPositive());
	}

	private static boolean isRelay(ReceivedSpan span) {
		return "mcp-relay".equals(span.service());
	}

	private static SdkMcpUpstream.Seen toolCallSeen(String id) {
		return UPSTREAM.seen().stream()
			.filter(seen -> seen.body().contains("\"" + id + "\""))
			.findFirst()
			.orElseThrow(() -> new AssertionError("the upstream never saw " + id));
	}

	private RawHttp http() {
		return new RawHttp(port);
	}

}
