package dev.mcprelay.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

/**
 * A real OTLP/HTTP trace endpoint on 127.0.0.1 ({@code POST /v1/traces}, protobuf, gzip or not): decodes every
 * export with the OpenTelemetry protobuf model and keeps the spans, with the service that sent them. Answers 200 with
 * an empty {@code ExportTraceServiceResponse}, or, while {@link #failWith} is set, that status.
 */
public final class OtlpTraceReceiver implements AutoCloseable {

	/** One span as received, with the {@code service.name} of the resource that sent it. */
	public record ReceivedSpan(String service, Span span) {

		public String name() {
			return span.getName();
		}

		public String traceId() {
			return hex(span.getTraceId().toByteArray());
		}

		public String spanId() {
			return hex(span.getSpanId().toByteArray());
		}

		public String parentSpanId() {
			return hex(span.getParentSpanId().toByteArray());
		}

		/** The attribute's value as a string, or {@code null} when the span has none by that key. */
		public String attribute(String key) {
			return ReceivedSpan.value(span.getAttributesList(), key);
		}

		public List<String> eventNames() {
			return span.getEventsList().stream().map(Span.Event::getName).toList();
		}

		static String value(List<KeyValue> attributes, String key) {
			for (KeyValue attribute : attributes) {
				if (attribute.getKey().equals(key)) {
					AnyValue value = attribute.getValue();
					return switch (value.getValueCase()) {
						case STRING_VALUE -> value.getStringValue();
						case INT_VALUE -> Long.toString(value.getIntValue());
						case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
						case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
						default -> value.toString();
					};
				}
			}
			return null;
		}

	}

	private final HttpServer server;

	private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

	private volatile int failWith;

	public OtlpTraceReceiver() {
		try {
			server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		server.createContext("/v1/traces", this::receive);
		server.start();
	}

	/** The endpoint to configure as {@code management.opentelemetry.tracing.export.otlp.endpoint}. */
	public String endpoint() {
		return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
	}

	/** Answers every export with {@code status} from now on (0: accept again). */
	public void failWith(int status) {
		this.failWith = status;
	}

	public List<ReceivedSpan> spans() {
		return List.copyOf(spans);
	}

	/** Waits until a span matching {@code wanted} arrived, and returns it. */
	public ReceivedSpan await(Predicate<ReceivedSpan> wanted, Duration within) {
		long deadline = System.nanoTime() + within.toNanos();
		while (System.nanoTime() < deadline) {
			for (ReceivedSpan span : spans) {
				if (wanted.test(span)) {
					return span;
				}
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		throw new AssertionError("No such span within " + within + "; received: "
				+ spans.stream().map(span -> span.service() + ":" + span.name()).toList());
	}

	public void clear() {
		spans.clear();
	}

	private void receive(HttpExchange exchange) throws IOException {
		try (exchange) {
			byte[] body;
			try (InputStream in = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
					? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
				body = in.readAllBytes();
			}
			int status = failWith;
			if (status != 0) {
				exchange.sendResponseHeaders(status, -1);
				return;
			}
			ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
			List<ReceivedSpan> received = new ArrayList<>();
			for (ResourceSpans resource : request.getResourceSpansList()) {
				String service = ReceivedSpan.value(resource.getResource().getAttributesList(), "service.name");
				for (ScopeSpans scope : resource.getScopeSpansList()) {
					scope.getSpansList().forEach(span -> received.add(new ReceivedSpan(service, span)));
				}
			}
			spans.addAll(received);
			exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
			exchange.sendResponseHeaders(200, -1);
		}
	}

	/** Lower-case hex, as ids are written in {@code traceparent}. */
	public static String hex(byte[] bytes) {
		StringBuilder text = new StringBuilder(bytes.length * 2);
		for (byte b : bytes) {
			text.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
		}
		return text.toString();
	}

	@Override
	public void close() {
		server.stop(0);
	}

}
