package dev.mcprelay.intercept;

import java.time.Duration;
import java.util.Collections;
import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.chain.Verdict;
import dev.mcprelay.jsonrpc.JsonRpcPayload;

/**
 * What the request stages decided about one POST body: which messages go upstream (changed or not), and which the
 * relay answers itself (a respond, or a rejection). A body whose messages all go upstream unchanged is forwarded
 * byte for byte; otherwise the messages that go are re-encoded, keeping the body's batch or single shape. A body that
 * serves no request and has a message refused, answers or notifications among them, forwards nothing: it is refused
 * whole (400).
 */
public final class InboundPlan {

	private final JsonRpcPayload payload;

	private final List<ObjectNode> forwarded;

	private final boolean changed;

	private final PendingRequests pending;

	private final List<ObjectNode> answers;

	private final boolean refusedWhole;

	private final List<Verdict> stops;

	private final List<ObjectNode> notifications;

	InboundPlan(JsonRpcPayload payload, List<ObjectNode> forwarded, boolean changed, PendingRequests pending,
			List<ObjectNode> answers, boolean refusedWhole, List<Verdict> stops, List<ObjectNode> notifications) {
		this.notifications = owned(notifications);
		this.payload = payload;
		this.forwarded = owned(forwarded);
		this.changed = changed;
		this.pending = pending;
		this.answers = owned(answers);
		this.refusedWhole = refusedWhole;
		this.stops = owned(stops);
	}

	/**
	 * A list the plan's maker made for it and let go of, read-only from now on: of one element (a request's
	 * forwarded message), a list of it, else not copied (a copy of each of the four lists was an array and a list per
	 * request).
	 */
	private static <T> List<T> owned(List<T> list) {
		return switch (list.size()) {
			case 0 -> List.of();
			case 1 -> List.of(list.get(0));
			default -> Collections.unmodifiableList(list);
		};
	}

	/** The body as the client sent it. */
	public JsonRpcPayload payload() {
		return payload;
	}

	/** Whether any message goes upstream. */
	public boolean forwardsAnything() {
		return !forwarded.isEmpty();
	}

	/**
	 * Whether what goes upstream may differ from what the client sent: an interceptor changed a message (its arguments,
	 * say), or the stages answered or dropped some.
	 */
	public boolean changed() {
		return changed;
	}

	/** The body to send upstream: the client's bytes when nothing changed, else the re-encoded messages. */
	public byte[] upstreamBody() {
		return changed ? encodedForwardedMessages() : payload.raw();
	}

	/**
	 * The messages that go upstream, live: the relay may change them in place after the plan was made (trace context
	 * in {@code params._meta}), and then sends {@link #encodedForwardedMessages()}.
	 */
	public List<ObjectNode> forwardedMessages() {
		return forwarded;
	}

	/** The messages that go upstream, encoded as they are now, in the body's batch or single shape. */
	public byte[] encodedForwardedMessages() {
		if (!payload.batch()) {
			return JsonRpcErrors.toBytes(forwarded.get(0));
		}
		ArrayNode batch = JsonNodeFactory.instance.arrayNode(forwarded.size());
		batch.addAll(forwarded);
		return JsonRpcErrors.toBytes(batch);
	}

	/** The forwarded requests, waiting for their answers. */
	public PendingRequests pending() {
		return pending;
	}

	/** The answers the relay gives itself (results, errors, id-less errors for notifications), in message order. */
	public List<ObjectNode> localAnswers() {
		return answers;
	}

	/**
	 * The status of an answer made of {@link #localAnswers()} only: the first status a rejection asked for
	 * ({@link RejectError#withHttpStatus}, e.g. 429) when nothing goes upstream; else 400 when the POST is refused
	 * whole (it serves no request and had an answer, a notification or an invalid element refused, or only id-less
	 * errors to give), else 200.
	 */
	public HttpStatus localAnswerStatus() {
		if (!forwardsAnything()) {
			for (Verdict stop : stops) {
				if (stop.kind() == Verdict.Kind.REJECT && stop.error().httpStatus() > 0) {
					return HttpStatus.valueOf(stop.error().httpStatus());
				}
			}
		}
		return refusedWhole ? HttpStatus.BAD_REQUEST : HttpStatus.OK;
	}

	/**
	 * The headers of an answer made of {@link #localAnswers()} only: {@code Retry-After} with the longest wait a
	 * rejection asked for, when nothing goes upstream.
	 */
	public HttpHeaders localAnswerHeaders() {
		HttpHeaders headers = new HttpHeaders();
		if (!forwardsAnything()) {
			stops.stream()
				.filter(stop -> stop.kind() == Verdict.Kind.REJECT && stop.error().retryAfter() != null)
				.map(stop -> stop.error().retryAfter())
				.max(Duration::compareTo)
				.ifPresent(wait -> headers.set(HttpHeaders.RETRY_AFTER, String.valueOf(RejectError.retryAfterSeconds(wait))));
		}
		return headers;
	}

	/**
	 * The notifications interceptors answered with before their results ({@link Outcome#respond(List, Object)}), in
	 * message order; sent as SSE events ahead of {@link #localAnswers()} when the client accepts a stream and nothing
	 * goes upstream, else not at all.
	 */
	public List<ObjectNode> localNotifications() {
		return notifications;
	}

	/** The verdicts that stopped a chain (respond or reject), in message order; for logs and metrics. */
	public List<Verdict> stops() {
		return stops;
	}

}
