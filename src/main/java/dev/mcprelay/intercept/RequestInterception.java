package dev.mcprelay.intercept;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcMessages;
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

	private final InterceptorChains chains;

	RequestInterception(InterceptorChains chains) {
		this.chains = chains;
	}

	/**
	 * Decides about every message of {@code payload}.
	 *
	 * @param timeout how long each interceptor may take
	 * @return the plan; never an error, since interceptor failures become rejections
	 */
	public Mono<InboundPlan> apply(JsonRpcPayload payload, CallContext context, Duration timeout) {
		return InOrder.map(payload.messages(), message -> decide(message, context, timeout))
			.map(decisions -> plan(payload, decisions));
	}

	/**
	 * Decides about a GET or DELETE at the user-request stage.
	 *
	 * @return the verdict: proceed, or reject (a respond is refused, since there is no request to answer); never an
	 * error
	 */
	public Mono<Verdict> applyWithoutBody(HttpMethod method, CallContext context, Duration timeout) {
		return chains.chain(Stage.USER_REQUEST).run(new ClientMessage(context, method), timeout).map(verdict -> {
			if (verdict.kind() == Verdict.Kind.RESPOND) {
				log.warn("Interceptor '{}' (user-request stage) answered a {}, which has no request to answer; it is "
						+ "refused", verdict.interceptor(), method.name());
				return Verdict.rejected(RejectError.fromCause(new IllegalStateException()), verdict.interceptor());
			}
			return verdict;
		});
	}

	private record Decision(JsonRpcMessage message, McpRequest request, Verdict verdict) {

		boolean changed() {
			return request != null && request.isChanged();
		}

	}

	private Mono<Decision> decide(JsonRpcMessage message, CallContext context, Duration timeout) {
		ClientMessage view = new ClientMessage(context, message);
		return chains.chain(Stage.USER_REQUEST).run(view, timeout).flatMap(verdict -> {
			if (!verdict.proceeds()) {
				return Mono.just(new Decision(message, null, answerable(verdict, message)));
			}
			return switch (message.kind()) {
				case REQUEST -> decideRequest(message, context, timeout);
				case NOTIFICATION -> chains.chain(Stage.CLIENT_NOTIFICATION)
					.run(new ClientNotification(context, message.node()), timeout)
					.map(notificationVerdict -> new Decision(message, null, notificationVerdict));
				case RESPONSE -> Mono.just(new Decision(message, null, verdict));
			};
		});
	}

	private <V extends McpRequest> Mono<Decision> decideRequest(JsonRpcMessage message, CallContext context,
			Duration timeout) {
		@SuppressWarnings("unchecked")
		MethodRoutes.RequestRoute<V> route = (MethodRoutes.RequestRoute<V>) MethodRoutes.request(message.method());
		V request = route.view().create(context, message.node());
		return chains.chain(route.stage())
			.run(request, timeout)
			.map(verdict -> new Decision(message, request, verdict));
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

	private static InboundPlan plan(JsonRpcPayload payload, List<Decision> decisions) {
		List<ObjectNode> forwarded = new ArrayList<>();
		List<ObjectNode> answers = new ArrayList<>(payload.invalidAnswers());
		List<Verdict> stops = new ArrayList<>();
		PendingRequests pending = new PendingRequests();
		boolean changed = !payload.isWhole();
		boolean idless = answers.stream().allMatch(answer -> answer.get("id").isNull());
		for (Decision decision : decisions) {
			JsonRpcMessage message = decision.message();
			Verdict verdict = decision.verdict();
			if (verdict.proceeds()) {
				forwarded.add(message.node());
				changed |= decision.changed();
				if (decision.request() != null) {
					pending.add(decision.request());
				}
				continue;
			}
			stops.add(verdict);
			changed = true;
			if (message.isRequest()) {
				idless = false;
				answers.add(verdict.kind() == Verdict.Kind.RESPOND ? JsonRpcMessages.result(message.id(), verdict.result())
						: error(message, verdict.error()));
			}
			else {
				answers.add(JsonRpcErrors.error(null, verdict.error().code(), verdict.error().getMessage(),
						verdict.error().data()));
			}
		}
		return new InboundPlan(payload, forwarded, changed, pending, answers, idless, stops);
	}

	private static ObjectNode error(JsonRpcMessage message, RejectError error) {
		return JsonRpcErrors.error(message.id(), error.code(), error.getMessage(), error.data());
	}

}
