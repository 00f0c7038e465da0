package dev.mcprelay.intercept;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.ClientMessage;
import dev.mcprelay.api.ClientNotification;
import dev.mcprelay.api.ClientResponse;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.MessageView;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.api.jsonrpc.JsonRpcMessages;
import dev.mcprelay.chain.InterceptorChain;
import dev.mcprelay.chain.MethodRoutes;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.chain.Verdict;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import reactor.core.publisher.Mono;

/**
 * Runs the client-to-server stages over each message of a POST body, in order: user-request, then the request's
 * per-method stage or the client-notification stage. Each message of a batch is decided on its own; none is ever
 * dropped without an answer.
 */
@Component
public class RequestInterception {

	private static final Logger log = LoggerFactory.getLogger(RequestInterception.class);

	/** The {@code name} a refusal of the relay's own carries in logs and meters, where an interceptor's would. */
	static final String RELAY = "relay";

	private final InterceptorChains chains;

	private final ServerRequestIds serverRequestIds;

	private final ResumableRequests resumable;

	RequestInterception(InterceptorChains chains, ServerRequestIds serverRequestIds, ResumableRequests resumable) {
		this.chains = chains;
		this.serverRequestIds = serverRequestIds;
		this.resumable = resumable;
	}

	/**
	 * Decides about every message of {@code payload}.
	 *
	 * @param timeout how long each interceptor may take
	 * @return the plan; never an error, since interceptor failures become rejections
	 */
	public Mono<InboundPlan> apply(JsonRpcPayload payload, CallContext context, Duration timeout) {
		return apply(payload, context, timeout, ChainWatcher.NONE);
	}

	/**
	 * Decides about every message of {@code payload}, telling {@code watcher} of each chain that ran.
	 *
	 * @param timeout how long each interceptor may take
	 * @return the plan; never an error, since interceptor failures become rejections
	 */
	public Mono<InboundPlan> apply(JsonRpcPayload payload, CallContext context, Duration timeout,
			ChainWatcher watcher) {
		return InOrder.map(payload.messages(), message -> decide(message, context, timeout, watcher))
			.map(decisions -> plan(payload, decisions, new PendingRequests(context, resumable)));
	}

	/** Runs {@code stage}'s chain for {@code context}'s server over {@code view}, a view of {@code message}. */
	private <V extends MessageView> Mono<Verdict> run(Stage<V> stage, V view, JsonRpcMessage message,
			CallContext context, Duration timeout, ChainWatcher watcher) {
		InterceptorChain<V> chain = chains.chain(stage, context);
		if (chain.isEmpty()) {
			return Verdict.PROCEED_MONO;
		}
		long start = System.nanoTime();
		return chain.run(view, timeout).doOnNext(verdict -> watcher.chainRan(message, stage.name(), verdict, start));
	}

	/**
	 * Decides about a GET or DELETE at the user-request stage.
	 *
	 * @return the verdict: proceed, or reject (a respond is refused, since there is no request to answer); never an
	 * error
	 */
	public Mono<Verdict> applyWithoutBody(HttpMethod method, CallContext context, Duration timeout) {
		return chains.chain(Stage.USER_REQUEST, context).run(new ClientMessage(context, method.name()), timeout).map(verdict -> {
			if (verdict.kind() == Verdict.Kind.RESPOND) {
				log.warn("Interceptor '{}' (user-request stage) answered a {}, which has no request to answer; it is "
						+ "refused", verdict.interceptor(), method.name());
				return Verdict.rejected(RejectError.fromCause(new IllegalStateException()), verdict.interceptor());
			}
			return verdict;
		});
	}

	private record Decision(JsonRpcMessage message, MessageView view, Verdict verdict) {

		boolean changed() {
			return view != null && view.isChanged();
		}

		/** The request waiting for its answer, when this is one. */
		McpRequest request() {
			return view instanceof McpRequest request ? request : null;
		}

	}

	private Mono<Decision> decide(JsonRpcMessage message, CallContext context, Duration timeout,
			ChainWatcher watcher) {
		ServerRequestIds.Origin origin = message.isResponse() ? serverRequestIds.answered(message.id(), context)
				: serverRequestIds.unwrap(serverRequestIdOf(message), context);
		if (origin != null && origin.refused()) {
			return Mono.just(new Decision(message, null, Verdict.rejected(unknownServerRequest(message), RELAY)));
		}
		ClientMessage view = new ClientMessage(context, message);
		return run(Stage.USER_REQUEST, view, message, context, timeout, watcher).flatMap(verdict -> {
			if (!verdict.proceeds() && message.isResponse()) {
				return Mono.just(refusedAnswer(message, context, answerable(verdict, message).error(), origin));
			}
			if (!verdict.proceeds()) {
				return Mono.just(new Decision(message, null, answerable(verdict, message)));
			}
			return switch (message.kind()) {
				case REQUEST -> decideRequest(message, context, timeout, watcher);
				case NOTIFICATION -> {
					ClientNotification notification = new ClientNotification(context, message.node());
					restoreCancelledId(message, notification, origin);
					yield run(Stage.CLIENT_NOTIFICATION, notification, message, context, timeout, watcher)
						.map(notificationVerdict -> new Decision(message, notification, notificationVerdict));
				}
				case RESPONSE -> clientResponse(message, context, timeout, origin);
			};
		});
	}

	private <V extends McpRequest> Mono<Decision> decideRequest(JsonRpcMessage message, CallContext context,
			Duration timeout, ChainWatcher watcher) {
		@SuppressWarnings("unchecked")
		MethodRoutes.RequestRoute<V> route = (MethodRoutes.RequestRoute<V>) MethodRoutes.request(message.method());
		V request = route.view().create(context, message.node());
		return run(route.stage(), request, message, context, timeout, watcher)
			.map(verdict -> new Decision(message, request, verdict));
	}

	/**
	 * A client's answer to a server request: the server's own id restored when the relay gave it another, then the
	 * client-response stage with the server request at hand. A rejection goes to the server as the error answer.
	 */
	private Mono<Decision> clientResponse(JsonRpcMessage message, CallContext context, Duration timeout,
			ServerRequestIds.Origin origin) {
		ClientResponse view = serverAnswer(message, context, origin);
		return chains.chain(Stage.CLIENT_RESPONSE, context).run(view, timeout).map(verdict -> {
			if (!verdict.proceeds()) {
				view.replaceWithError(verdict.error());
			}
			return new Decision(message, view, Verdict.PROCEED);
		});
	}

	/**
	 * The id by which a client's notification names a server request: {@code params.requestId} for a
	 * {@code notifications/cancelled}; {@code null} for anything else. (An answer names it by its own id.)
	 */
	private static JsonNode serverRequestIdOf(JsonRpcMessage message) {
		if (message.kind() == JsonRpcMessage.Kind.NOTIFICATION && "notifications/cancelled".equals(message.method())) {
			return message.node().path("params").get("requestId");
		}
		return null;
	}

	/**
	 * The refusal of a client's answer or cancellation that names a server request by an id with the relay's prefix
	 * that does not verify in this session, or of an answer under an id without it ({@link ServerRequestIds#answered}):
	 * what it would restore is the client's word, so nothing goes upstream. The id is not quoted: it is the client's text.
	 */
	private static RejectError unknownServerRequest(JsonRpcMessage message) {
		String what = message.isResponse() ? "This answer's id" : "The requestId of this cancellation";
		return new RejectError(JsonRpcErrorCodes.INVALID_REQUEST, "Invalid Request: " + what + " is not one the relay "
				+ "gave a server request in this session (altered, expired, given in another session, or the server's "
				+ "own id, which the relay replaces); nothing was sent upstream", Map.of("reason", "unknown_request_id"));
	}

	/**
	 * A client's {@code notifications/cancelled} of a server request names the request by the id the relay gave it
	 * ({@code origin}, {@code null} for a client's own request): the server gets its own id back, as it does in the
	 * client's answer, or it could not tell which request ends.
	 */
	private static void restoreCancelledId(JsonRpcMessage message, ClientNotification notification,
			ServerRequestIds.Origin origin) {
		if (origin != null && message.node().get("params") instanceof ObjectNode params) {
			params.set("requestId", origin.id());
			notification.markChanged();
		}
	}

	/**
	 * The view of a client's answer to a server request, with the server's own id restored when the relay gave it
	 * another, and the server request at hand when the id the relay gave verifies.
	 */
	private static ClientResponse serverAnswer(JsonRpcMessage message, CallContext context,
			ServerRequestIds.Origin origin) {
		boolean known = origin != null && origin.trusted();
		ClientResponse view = new ClientResponse(context, message.node(), known ? origin.method() : null,
				known ? origin.params() : null);
		if (origin != null) {
			message.node().set("id", origin.id());
			view.markChanged();
		}
		return view;
	}

	/**
	 * A client's answer to a server request that the user-request stage refused: the server still gets an answer, the
	 * refusal as the error answer to its request under its own id (a server waits for every answer, as it does when
	 * the client-response stage refuses one); the client's POST is answered as the upstream answers it.
	 */
	private static Decision refusedAnswer(JsonRpcMessage message, CallContext context, RejectError error,
			ServerRequestIds.Origin origin) {
		ClientResponse view = serverAnswer(message, context, origin);
		view.replaceWithError(error);
		return new Decision(message, view, Verdict.PROCEED);
	}

	/** A respond is only possible for a request: for anything else the interceptor misbehaved. */
	private static Verdict answerable(Verdict verdict, JsonRpcMessage message) {
		if (verdict.kind() == Verdict.Kind.RESPOND && !message.isRequest()) {
			log.warn("Interceptor '{}' (user-request stage) answered a {}, but only a request can be answered; the "
					+ "message is refused", verdict.interceptor(), message.kind().name().toLowerCase());
			return Verdict.rejected(RejectError.fromCause(new IllegalStateException()), verdict.interceptor());
		}
		return verdict;
	}

	/**
	 * What goes upstream and what the relay answers. A POST that serves no request (none forwarded, none answered by
	 * an interceptor's respond), holds an answer or a notification, and has any element refused (an answer, a
	 * notification, an invalid element or a request, with an id or without) is refused whole: its answer is 400 with
	 * the errors, which a client takes as its POST not accepted (the Streamable HTTP transport's rule: a POST of answers
	 * and notifications gets 202 or an HTTP error) and may send again, so nothing of it goes upstream. A POST of
	 * requests only, all refused, is answered as requests are; with a request served, the refusals join the request's
	 * answers (200) and the rest goes on.
	 */
	private static InboundPlan plan(JsonRpcPayload payload, List<Decision> decisions, PendingRequests pending) {
		// the plan keeps these lists as they are (InboundPlan); none of them is made for nothing
		List<ObjectNode> forwarded = new ArrayList<>(decisions.size());
		List<ObjectNode> answers = payload.invalidAnswers().isEmpty() ? new ArrayList<>(0)
				: new ArrayList<>(payload.invalidAnswers());
		List<ObjectNode> notifications = List.of();
		List<Verdict> stops = List.of();
		boolean changed = !payload.isWhole();
		boolean idless = true;
		for (ObjectNode answer : answers) {
			idless &= answer.get("id").isNull();
		}
		boolean forwardsRequest = false;
		boolean refused = !payload.invalidAnswers().isEmpty();
		boolean responded = false;
		boolean holdsAnswerOrNotification = false;
		for (Decision decision : decisions) {
			JsonRpcMessage message = decision.message();
			Verdict verdict = decision.verdict();
			holdsAnswerOrNotification |= !message.isRequest();
			if (verdict.proceeds()) {
				forwarded.add(message.node());
				changed |= decision.changed();
				forwardsRequest |= message.isRequest();
				if (decision.request() != null) {
					pending.add(decision.request());
				}
				continue;
			}
			stops = stops.isEmpty() ? new ArrayList<>(2) : stops;
			stops.add(verdict);
			changed = true;
			refused |= verdict.kind() != Verdict.Kind.RESPOND;
			responded |= verdict.kind() == Verdict.Kind.RESPOND;
			if (message.isRequest()) {
				idless = false;
				if (verdict.kind() == Verdict.Kind.RESPOND && !verdict.notifications().isEmpty()) {
					notifications = notifications.isEmpty() ? new ArrayList<>() : notifications;
					notifications.addAll(verdict.notifications());
				}
				answers.add(verdict.kind() == Verdict.Kind.RESPOND ? JsonRpcMessages.result(message.id(), verdict.result())
						: error(message, verdict.error()));
			}
			else {
				answers.add(JsonRpcErrors.error(null, verdict.error().code(), verdict.error().getMessage(),
						verdict.error().data()));
			}
		}
		boolean servesRequest = forwardsRequest || responded;
		boolean refusedWhole = refused && !servesRequest && (idless || holdsAnswerOrNotification);
		if (refusedWhole) {
			forwarded.clear();
		}
		return new InboundPlan(payload, forwarded, changed, pending, answers, refusedWhole, stops, notifications);
	}

	private static ObjectNode error(JsonRpcMessage message, RejectError error) {
		return JsonRpcErrors.error(message.id(), error.code(), error.getMessage(), error.data());
	}

}
