package dev.mcprelay.tracing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.Sha256;
import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

/**
 * Where the relay's telemetry in MCP's own terms starts: {@link #begin} makes the {@link ExchangeTrace} of one client
 * POST, with a {@link MessageTrace} for each request and notification in it. The operation histograms
 * ({@link McpOperationMeters}) are always recorded; spans only when tracing is on ({@link TracingSwitch}: an OTLP
 * endpoint is configured), through Micrometer Tracing over OpenTelemetry, sampled as Spring Boot's
 * {@code management.tracing.sampling.probability} says (parent-based: a sampled caller's trace is kept).
 *
 * <p>A message's server span continues the trace its {@code params._meta} carries (the conventions' propagation),
 * else the one of the request's {@code traceparent} header, else starts one; a malformed context in either is
 * ignored. Spans carry the caller's id, the server and the virtual server, never a credential; the session id only as
 * a digest ({@code mcp.session.id}: the first 16 bytes of its SHA-256, hex), since in mode {@code none} the id itself
 * lets its holder into the session. Text from a message is cut to {@value TelemetryText#MAX_LENGTH} characters in span
 * names, attributes and events ({@link TelemetryText}). A client's sampled flag is honoured up to
 * {@code mcp-relay.tracing.client-sampled-traces-per-second} ({@link ClientSampledCeiling}).
 */
@Component
public class McpTelemetry {

	private static final Logger log = LoggerFactory.getLogger(McpTelemetry.class);

	private static final Propagator.Getter<RequestHeaders> HEADERS = RequestHeaders::getFirst;

	private final McpOperationMeters meters;

	private final Tracer tracer;

	private final Propagator propagator;

	McpTelemetry(McpOperationMeters meters, ObjectProvider<Tracer> tracer, ObjectProvider<Propagator> propagator,
			Environment environment) {
		this.meters = meters;
		boolean on = TracingSwitch.tracingOn(environment) && tracer.getIfAvailable() != null
				&& tracer.getIfAvailable() != Tracer.NOOP && propagator.getIfAvailable() != null;
		this.tracer = on ? tracer.getObject() : null;
		this.propagator = on ? propagator.getObject() : null;
		if (on) {
			log.info("Tracing MCP messages to {} (sampling {})", environment.getProperty(TracingSwitch.OTLP_ENDPOINT),
					environment.getProperty("management.tracing.sampling.probability", "0.1"));
		}
	}

	McpOperationMeters meters() {
		return meters;
	}

	/** Whether spans are made. */
	public boolean tracing() {
		return tracer != null;
	}

	/**
	 * The telemetry of one POST whose body is {@code payload}, begun as the body was parsed: a message trace (and, when
	 * tracing, a server span) for each request and notification, in order. Never fails.
	 */
	public ExchangeTrace begin(JsonRpcPayload payload, CallContext context) {
		long now = System.nanoTime();
		List<MessageTrace> messages = new ArrayList<>(payload.messages().size());
		for (JsonRpcMessage message : payload.messages()) {
			if (message.isResponse()) {
				continue;
			}
			MessageTrace.Facts facts = MessageTrace.Facts.of(message, context);
			messages.add(new MessageTrace(this, message, facts, now,
					tracer == null ? null : serverSpan(message, facts, context)));
		}
		return new ExchangeTrace(this, messages);
	}

	private Span serverSpan(JsonRpcMessage message, MessageTrace.Facts facts, CallContext context) {
		ObjectNode meta = TraceMeta.carrierOf(message.node());
		Span.Builder builder = meta != null ? propagator.extract(meta, TraceMeta.GETTER)
				: propagator.extract(context.headers(), HEADERS);
		builder.name(facts.spanName()).kind(Span.Kind.SERVER);
		if (meta != null) {
			linkTransport(builder, context.headers().getFirst(TraceMeta.TRACEPARENT));
		}
		Span span = builder.start();
		if (span.isNoop()) {
			// not sampled: nothing of it is kept, so nothing is written into it
			return span;
		}
		tagMessage(span, facts);
		String session = context.sessionId();
		if (session != null) {
			span.tag(McpAttributes.SESSION_ID, Sha256.hex(session).substring(0, 32));
		}
		if (context.caller() != null && context.caller().id() != null) {
			span.tag(McpAttributes.RELAY_CLIENT, TelemetryText.cut(context.caller().id()));
		}
		return span;
	}

	/**
	 * A message whose own context ({@code params._meta}) is its parent links the context of the HTTP request that
	 * carried it, as the conventions ask: the transport's story and the message's are told apart, and both are kept.
	 */
	private void linkTransport(Span.Builder builder, String traceparent) {
		String[] parts = TraceMeta.parts(traceparent);
		if (parts != null) {
			builder.addLink(new Link(tracer.traceContextBuilder()
				.traceId(parts[0])
				.spanId(parts[1])
				.sampled(Boolean.valueOf(parts[2]))
				.build()));
		}
	}

	/**
	 * The span of {@code trace}'s trip to {@code host}:{@code port}, a child of its server span, which is sampled
	 * (an unsampled message's trip gets no span: it would be no more sampled than its parent).
	 */
	Span clientSpan(MessageTrace trace, String host, int port) {
		Span span = tracer.spanBuilder()
			.setParent(trace.serverSpan().context())
			.name(trace.facts().spanName())
			.kind(Span.Kind.CLIENT)
			.start();
		tagMessage(span, trace.facts());
		if (host != null) {
			span.tag(McpAttributes.SERVER_ADDRESS, host);
			span.tag(McpAttributes.SERVER_PORT, (long) port);
		}
		return span;
	}

	/**
	 * The span of an interceptor chain that did something to {@code trace}'s message, already over: from
	 * {@code startNanos} (of {@link System#nanoTime}) until now.
	 */
	void interceptorSpan(MessageTrace trace, String stage, String interceptor, String outcome, long startNanos) {
		interceptorSpan(trace, stage, interceptor, outcome, startNanos, null);
	}

	/**
	 * The same, for a refusal {@code refused} (or {@code null}), whose operator-only reason and detail
	 * ({@link dev.mcprelay.api.RejectError#logReason()}: a policy's name, say) the span carries.
	 */
	void interceptorSpan(MessageTrace trace, String stage, String interceptor, String outcome, long startNanos,
			dev.mcprelay.api.RejectError refused) {
		long elapsedMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - startNanos);
		java.time.Instant now = java.time.Instant.now();
		long startMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000 - elapsedMicros;
		Span span = tracer.spanBuilder()
			.setParent(trace.serverSpan().context())
			.name("interceptors " + stage)
			.tag(McpAttributes.INTERCEPTOR_STAGE, stage)
			.tag(McpAttributes.INTERCEPTOR_OUTCOME, outcome)
			.tag(McpAttributes.INTERCEPTOR_NAME, interceptor == null ? "" : interceptor)
			.tag(McpAttributes.METHOD_NAME, trace.facts().method())
			.startTimestamp(startMicros, TimeUnit.MICROSECONDS)
			.start();
		if (refused != null && refused.logReason() != null) {
			span.tag(McpAttributes.REFUSAL_REASON, refused.logReason());
			if (refused.logDetail() != null) {
				span.tag(McpAttributes.REFUSAL_DETAIL, refused.logDetail());
			}
		}
		span.end();
	}

	/** Writes {@code context} into {@code carrier} with the configured propagator (W3C's by default). */
	<C> void inject(TraceContext context, C carrier, Propagator.Setter<C> setter) {
		propagator.inject(context, carrier, setter);
	}

	private static void tagMessage(Span builder, MessageTrace.Facts facts) {
		builder.tag(McpAttributes.METHOD_NAME, facts.method());
		builder.tag(McpAttributes.RELAY_SERVER, facts.server());
		builder.tag(McpAttributes.NETWORK_TRANSPORT, "tcp");
		builder.tag(McpAttributes.NETWORK_PROTOCOL_NAME, "http");
		if (facts.requestId() != null) {
			builder.tag(McpAttributes.REQUEST_ID, facts.requestId());
		}
		if (facts.toolName() != null) {
			builder.tag(McpAttributes.TOOL_NAME, facts.toolName());
			builder.tag(McpAttributes.OPERATION_NAME, McpAttributes.EXECUTE_TOOL);
		}
		if (facts.promptName() != null) {
			builder.tag(McpAttributes.PROMPT_NAME, facts.promptName());
		}
		if (facts.resourceUri() != null) {
			builder.tag(McpAttributes.RESOURCE_URI, facts.resourceUri());
		}
		if (facts.protocolVersion() != null) {
			builder.tag(McpAttributes.PROTOCOL_VERSION, facts.protocolVersion());
		}
		if (facts.virtualServer() != null) {
			builder.tag(McpAttributes.RELAY_VIRTUAL_SERVER, facts.virtualServer());
		}
	}
}
