package dev.mcprelay.tracing;

import java.util.List;

import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.chain.Verdict;
import dev.mcprelay.intercept.AnswerWatcher;
import dev.mcprelay.intercept.ChainWatcher;
import dev.mcprelay.intercept.InboundPlan;
import dev.mcprelay.intercept.PendingRequests;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcScanner;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;

/**
 * The telemetry of one client POST, one {@link MessageTrace} per request and notification in it, told by the relay
 * what happens as the exchange goes (from its serialized signals): which interceptor chains did something
 * ({@link #chainRan}), what goes upstream and with which trace context ({@link #upstreamBody}), which answers came
 * back ({@link AnswerWatcher}), and that the exchange ended ({@link #end}). Nothing here fails the exchange or changes
 * what it relays, except the trace context written into what goes upstream when tracing is on.
 */
public final class ExchangeTrace implements AnswerWatcher, ChainWatcher {

	/** The trace of an exchange the relay records nothing for (no message, or none parsed). */
	public static final ExchangeTrace NONE = new ExchangeTrace(null, List.of());

	private final McpTelemetry telemetry;

	private final List<MessageTrace> messages;

	/** Whether the messages' trips upstream started ({@link #upstreamBody}): a request sent again is the same trip. */
	private boolean tripsStarted;

	/** Whether trace context was spliced into the messages that go upstream, so that they go re-encoded. */
	private boolean spliced;

	private TraceContext upstreamContext;

	private final String traceId;

	ExchangeTrace(McpTelemetry telemetry, List<MessageTrace> messages) {
		this.telemetry = telemetry;
		this.messages = messages;
		Span first = messages.isEmpty() ? null : messages.get(0).serverSpan();
		this.traceId = first != null && Boolean.TRUE.equals(first.context().sampled()) ? first.context().traceId() : null;
	}

	/**
	 * An interceptor chain of {@code stage} ran over the client's {@code message} from {@code startNanos} and decided
	 * {@code verdict}: a rejection or an answer becomes the message's fate; when tracing, a chain that rejected,
	 * answered or changed the message gets a span (a chain that let it through untouched gets none).
	 */
	@Override
	public void chainRan(JsonRpcMessage message, String stage, Verdict verdict, long startNanos) {
		MessageTrace trace = find(message);
		if (trace != null) {
			interceptorsRan(trace, stage, verdict, startNanos, true);
		}
	}

	/**
	 * An interceptor chain of {@code stage} ran over the upstream's {@code message}: a span under the server span of
	 * the request it answers (of the first message, for a notification or request of the upstream's). For an answer,
	 * a rejection (the client gets an error instead) or a replaced error (the client gets a result) is the request's
	 * fate.
	 */
	@Override
	public void responseChainRan(JsonRpcMessage message, String stage, Verdict verdict, long startNanos) {
		MessageTrace trace = message.isResponse() ? answered(message.id()) : messages.isEmpty() ? null : messages.get(0);
		if (trace != null) {
			interceptorsRan(trace, stage, verdict, startNanos, message.isResponse());
		}
	}

	private void interceptorsRan(MessageTrace trace, String stage, Verdict verdict, long startNanos,
			boolean decidesFate) {
		String outcome = switch (verdict.kind()) {
			case REJECT -> "rejected";
			case RESPOND -> "responded";
			case PROCEED -> verdict.changedBy() != null ? "changed" : null;
			case DROP -> "dropped";
			case REPLACE_ERROR -> "replaced_error";
		};
		if (decidesFate) {
			switch (verdict.kind()) {
				case REJECT -> trace.rejected(verdict.error().code(), verdict.error().getMessage());
				case RESPOND, REPLACE_ERROR -> trace.respondedLocally();
				default -> {
				}
			}
		}
		if (outcome != null && trace.serverSpan() != null && !trace.serverSpan().isNoop()) {
			telemetry.interceptorSpan(trace, stage,
					verdict.proceeds() ? verdict.changedBy() : verdict.interceptor(), outcome, startNanos,
					verdict.kind() == Verdict.Kind.REJECT ? verdict.error() : null);
		}
	}

	/**
	 * The body of {@code plan} to send upstream, and its trace context in {@code headers}: the messages that go start
	 * their trip upstream (the first time only: a request sent again with a fresh token is the same trip). When
	 * tracing, {@code traceparent} (and {@code tracestate}) of the first message's trip go in the HTTP headers, and
	 * each sampled message that goes carries its own in {@code params._meta}, spliced into the message (nothing else
	 * in it changes); otherwise the body is the plan's as it is. The body is the plan's, encoded anew for a request
	 * sent again: the trace keeps no copy of it, nor of the client's messages once their trips started (a call held
	 * past its exchange keeps this trace for its server's later requests: review 46m, M2).
	 *
	 * @param host the upstream's host, for the spans
	 * @param port the upstream's port, for the spans
	 */
	public byte[] upstreamBody(InboundPlan plan, HttpHeaders headers, String host, int port) {
		if (!tripsStarted) {
			spliced = startTrips(plan, host, port);
			tripsStarted = true;
			// nothing tells a message apart by its tree from now on (the request stages ran): a call held past the
			// exchange, whose server's later requests this trace still watches, keeps no copy of the client's request
			// here (review 46m, M2)
			for (MessageTrace trace : messages) {
				trace.letGoOfMessage();
			}
		}
		if (upstreamContext != null) {
			telemetry.inject(upstreamContext, headers, HttpHeaders::set);
		}
		return spliced ? plan.encodedForwardedMessages() : plan.upstreamBody();
	}

	/** Starts the trips of the messages of {@code plan} that go upstream; whether trace context was spliced in. */
	private boolean startTrips(InboundPlan plan, String host, int port) {
		boolean spliced = false;
		for (ObjectNode forwarded : plan.forwardedMessages()) {
			MessageTrace trace = find(forwarded);
			if (trace == null) {
				continue;
			}
			Span serverSpan = trace.serverSpan();
			Span clientSpan = serverSpan == null || serverSpan.isNoop() ? null : telemetry.clientSpan(trace, host, port);
			trace.sent(clientSpan);
			if (clientSpan == null || clientSpan.isNoop()) {
				continue;
			}
			TraceContext context = clientSpan.context();
			if (upstreamContext == null) {
				upstreamContext = context;
			}
			if (Boolean.TRUE.equals(context.sampled())) {
				ObjectNode meta = TraceMeta.writableMetaOf(forwarded);
				if (meta != null) {
					telemetry.inject(context, meta, TraceMeta.SETTER);
					spliced = true;
				}
			}
		}
		return spliced;
	}

	/**
	 * {@code answer} answers one of the exchange's requests: its trip upstream ends; a {@code tools/list} or
	 * {@code prompts/list} result of the server's admits the names it lists as tag values ({@link BoundedNames}).
	 */
	@Override
	public void answered(JsonRpcMessage answer) {
		MessageTrace trace = answered(answer.id());
		if (trace != null) {
			trace.answered(answer);
			if (!answer.isError()) {
				telemetry.meters().listed(trace.facts().server(), trace.facts().method(), answer);
			}
		}
	}

	/** The request {@code id} answers. */
	private MessageTrace answered(JsonNode id) {
		for (MessageTrace trace : messages) {
			if (trace.facts().requestId() != null && PendingRequests.sameId(trace.requestIdNode(), id)) {
				return trace;
			}
		}
		return null;
	}

	/**
	 * A message of the upstream's on the POST's response is an event of the first message's server span (one event
	 * per message, not a span). A request of the upstream's to the client carries the trace context back in its
	 * {@code params._meta}: the upstream's own when it wrote one, else that server span's, when it is sampled.
	 */
	@Override
	public boolean relayed(JsonRpcMessage message) {
		Span span = messages.isEmpty() ? null : messages.get(0).serverSpan();
		if (span == null || span.isNoop() || message.method() == null) {
			return false;
		}
		span.event(TelemetryText.cut(message.method()));
		if (!message.isRequest() || !Boolean.TRUE.equals(span.context().sampled())
				|| TraceMeta.carrierOf(message.node()) != null) {
			return false;
		}
		ObjectNode meta = TraceMeta.writableMetaOf(message.node());
		if (meta == null) {
			return false;
		}
		telemetry.inject(span.context(), meta, TraceMeta.SETTER);
		return true;
	}

	/**
	 * Whether the upstream's messages on the POST's stream become events (a sampled server span), so that a relay that
	 * passes plain notifications on unread reads their method for it ({@link #streamed}).
	 */
	public boolean recordsEvents() {
		Span span = messages.isEmpty() ? null : messages.get(0).serverSpan();
		return span != null && !span.isNoop();
	}

	/**
	 * A plain notification of the upstream's, passed on unread on the POST's stream ({@code json}: its message): an
	 * event of the first message's server span, as {@link #relayed} makes for the messages the relay reads.
	 */
	public void streamed(byte[] json) {
		try {
			JsonRpcMessage message = JsonRpcScanner.scan(json).first();
			if (message != null && message.method() != null) {
				messages.get(0).serverSpan().event(TelemetryText.cut(message.method()));
			}
		}
		catch (JsonRpcParseException ex) {
			// a notification the relay passes unread was scanned as plain already: nothing to tell
		}
	}

	/**
	 * The exchange ended: every message's operation ends, and its trip upstream if that was still under way.
	 *
	 * @param failure the relay's failure reason for the exchange ({@code error.data.reason}), {@code client_left}
	 * when the client went away first, or {@code null}
	 */
	public void end(String failure) {
		for (MessageTrace trace : messages) {
			trace.end(failure);
		}
	}

	/**
	 * The trace id of the exchange's first message, for the access log; {@code null} when it is not traced or not
	 * sampled (nothing of that trace is kept).
	 */
	public String traceId() {
		return traceId;
	}

	private MessageTrace find(JsonRpcMessage message) {
		for (MessageTrace trace : messages) {
			if (trace.is(message)) {
				return trace;
			}
		}
		return null;
	}

	private MessageTrace find(ObjectNode node) {
		for (MessageTrace trace : messages) {
			if (trace.isOf(node)) {
				return trace;
			}
		}
		return null;
	}

}
