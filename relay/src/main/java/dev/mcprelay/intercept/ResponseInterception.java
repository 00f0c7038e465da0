package dev.mcprelay.intercept;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.McpResponse;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.RemoteMessage;
import dev.mcprelay.api.ServerNotification;
import dev.mcprelay.api.ServerRequest;
import dev.mcprelay.api.UpstreamError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.api.jsonrpc.JsonRpcMessages;
import dev.mcprelay.chain.InterceptorChain;
import dev.mcprelay.chain.MethodRoutes;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.chain.Verdict;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.jsonrpc.McpRequestMethods;
import dev.mcprelay.live.ConfigurationSnapshot;
import reactor.core.publisher.Mono;

/**
 * Runs the server-to-client stages over each upstream message, in order: remote-message, then, for a request of the
 * server to the client, its server-request stage; for a notification, the server-notification stage; for the answer to
 * a pending request, the per-method response stage (a result) or the error stage (an error); an answer under an id the
 * upstream rounded is one of these ({@link PendingRequests}) and reaches the client under the client's id. An answer
 * that matches no pending request (on a GET or resumed stream, or a stray) meets the stage {@link UnmatchedAnswers}
 * finds for it, or is dropped, never relayed past a stage that could apply to it; a message without an id that names
 * a request method is dropped. The requests the upstream failed or refused meet the error stage in
 * {@link FailedRequestAnswers}.
 *
 * <p>An answer meets the chains of the configuration snapshot its request runs on. A message the server sends of its
 * own accord (a notification, a request to the client) is no part of a request: it meets the chains of the snapshot
 * current when it is sent ({@link InterceptorChains#chainAsSent}), at every stage, so that a GET stream (or a call's
 * stream) opened before a reload is decided by the configuration a stream opened after it would be.
 */
@Component
public class ResponseInterception {

	/** The {@code logger} of the {@code notifications/message} that replaces a rejected notification. */
	static final String LOGGER_NAME = "mcp-relay";

	private final InterceptorChains chains;

	private final ServerRequestIds serverRequestIds;

	private final UnmatchedAnswers unmatched;

	ResponseInterception(InterceptorChains chains, ServerRequestIds serverRequestIds, UnmatchedAnswers unmatched) {
		this.chains = chains;
		this.serverRequestIds = serverRequestIds;
		this.unmatched = unmatched;
	}

	/**
	 * Decides about every message of one upstream body or SSE event, marking the requests it answers as answered.
	 *
	 * @param onStream whether the messages came as SSE events
	 * @param timeout how long each interceptor may take
	 * @return the messages to relay; never an error
	 */
	public Mono<RemoteMessages> apply(JsonRpcPayload received, CallContext context, PendingRequests pending,
			boolean onStream, Duration timeout) {
		return InOrder.map(received.messages(), message -> relay(message, context, pending, onStream, timeout))
			.map(relayed -> remoteMessages(received, relayed));
	}

	private static RemoteMessages remoteMessages(JsonRpcPayload received, List<Relayed> relayed) {
		List<JsonRpcMessage> messages = new ArrayList<>(relayed.size());
		List<ObjectNode> upstreamAnswers = List.of();
		List<ObjectNode> notices = List.of();
		boolean changed = false;
		for (Relayed one : relayed) {
			changed |= one.changed();
			if (one.message() != null) {
				messages.add(one.message());
			}
			if (one.upstreamAnswer() != null) {
				upstreamAnswers = upstreamAnswers.isEmpty() ? new ArrayList<>() : upstreamAnswers;
				upstreamAnswers.add(one.upstreamAnswer());
			}
			if (one.notice() != null) {
				notices = notices.isEmpty() ? new ArrayList<>() : notices;
				notices.add(one.notice());
			}
		}
		return new RemoteMessages(received, messages, changed, upstreamAnswers, notices);
	}

	/**
	 * One message on its way to the client, and whether it differs from what the upstream sent; for a rejected
	 * server-to-client request, no message but the answer the upstream gets and a notice the client may get. A
	 * message no interceptor saw is the upstream's as scanned: its tree is never read.
	 */
	private record Relayed(JsonRpcMessage message, boolean changed, ObjectNode upstreamAnswer, ObjectNode notice) {

		Relayed(JsonRpcMessage message, boolean changed) {
			this(message, changed, null, null);
		}

		/** The upstream's message replaced by one the relay wrote. */
		static Relayed replaced(ObjectNode replacement) {
			return new Relayed(JsonRpcMessage.written(replacement), true);
		}

		/** The upstream's message held back from the client. */
		static Relayed dropped() {
			return new Relayed(null, true);
		}

		/** The same, re-encoded: the relay changed the message before any stage did (it restored the answer's id). */
		Relayed asChanged() {
			return changed ? this : new Relayed(message, true, upstreamAnswer, notice);
		}

	}

	private Mono<Relayed> relay(JsonRpcMessage message, CallContext context, PendingRequests pending,
			boolean onStream, Duration timeout) {
		if (!message.isResponse()) {
			return relay(message, context, pending, onStream, timeout, null);
		}
		JsonNode sent = message.id();
		McpRequest request = pending.answer(message);
		if (request == null) {
			request = unmatched.known(message, pending, context);
		}
		Mono<Relayed> relayed = relay(message, context, pending, onStream, timeout, request);
		// the relay put the client's id where the upstream wrote another (it rounded it, or wrote none)
		return sent.equals(message.id()) ? relayed : relayed.map(Relayed::asChanged);
	}

	private Mono<Relayed> relay(JsonRpcMessage message, CallContext context, PendingRequests pending,
			boolean onStream, Duration timeout, McpRequest request) {
		if (message.kind() == JsonRpcMessage.Kind.NOTIFICATION && McpRequestMethods.isRequest(message.method())) {
			unmatched.droppedRequest(context, message);
			return Mono.just(Relayed.dropped());
		}
		if (!message.isResponse()) {
			// the watcher may write trace context into a server request, which is re-encoded anyway (its id changes)
			pending.watcher().relayed(message);
		}
		InterceptorChain<RemoteMessage> remoteChain = message.isResponse() ? chains.chain(Stage.REMOTE_MESSAGE, context)
				: chains.chainAsSent(Stage.REMOTE_MESSAGE, context);
		Mono<Verdict> remoteVerdict = remoteChain.isEmpty() ? Verdict.PROCEED_MONO
				: watched(Stage.REMOTE_MESSAGE, remoteChain.run(new RemoteMessage(context, message, request, onStream),
						timeout), message, pending);
		return remoteVerdict.flatMap(verdict -> {
			if (!verdict.proceeds() && message.isRequest()) {
				return Mono.just(answerUpstream(message, verdict.error()));
			}
			if (!verdict.proceeds()) {
				return Mono.just(Relayed.replaced(substitute(message, verdict.error())));
			}
			if (message.isRequest()) {
				return serverRequest(message, context, onStream, timeout, pending);
			}
			if (message.kind() == JsonRpcMessage.Kind.NOTIFICATION) {
				return serverNotification(message, context, onStream, timeout, pending);
			}
			McpRequest answered = request != null ? request : unmatched.unknown(message, pending, context, onStream);
			if (answered == null) {
				return Mono.just(Relayed.dropped());
			}
			return message.isError() ? error(message, context, answered, timeout, pending)
					: respond(message, context, answered, timeout, pending);
		});
	}

	/** An upstream's error answer at the error stage, with the request it answers at hand. */
	private Mono<Relayed> error(JsonRpcMessage message, CallContext context, McpRequest request, Duration timeout,
			PendingRequests pending) {
		InterceptorChain<UpstreamError> errorChain = chains.chain(Stage.ERROR, context);
		if (errorChain.isEmpty()) {
			return Mono.just(new Relayed(message, false));
		}
		UpstreamError error = new UpstreamError(context, message.node(), request, null);
		return watched(Stage.ERROR, errorChain.run(error, timeout), message, pending)
			.map(errorVerdict -> errorVerdict.proceeds() ? new Relayed(message, false)
					: Relayed.replaced(ErrorStageAnswers.after(error, errorVerdict)));
	}

	/** {@code verdict}, the chain of {@code stage} deciding about {@code message}, told to the exchange's watcher. */
	private static Mono<Verdict> watched(Stage<?> stage, Mono<Verdict> verdict, JsonRpcMessage message,
			PendingRequests pending) {
		long start = System.nanoTime();
		return verdict.doOnNext(decided -> pending.watcher().responseChainRan(message, stage.name(), decided, start));
	}

	/**
	 * A server-to-client request at its server-request stage: relayed (always re-encoded: under the relay's id),
	 * answered to the server by the interceptor's result, or refused to the server.
	 */
	private <V extends ServerRequest> Mono<Relayed> serverRequest(JsonRpcMessage message, CallContext context,
			boolean onStream, Duration timeout, PendingRequests pending) {
		@SuppressWarnings("unchecked")
		MethodRoutes.ServerRequestRoute<V> route = (MethodRoutes.ServerRequestRoute<V>) MethodRoutes
			.serverRequest(message.method());
		V request = route.view().create(context, message, onStream);
		InterceptorChain<V> chain = chains.chainAsSent(route.stage(), context);
		Mono<Verdict> decided = chain.isEmpty() ? Verdict.PROCEED_MONO
				: watched(route.stage(), chain.run(request, timeout), message, pending);
		return decided.map(verdict -> switch (verdict.kind()) {
			case RESPOND -> new Relayed(null, true, JsonRpcMessages.result(message.id(), verdict.result()), null);
			case REJECT -> answerUpstream(message, verdict.error());
			default -> carryToClient(message, context);
		});
	}

	/**
	 * A server request on its way to the client, always under an id that carries it, bound to this server, session
	 * and caller ({@link ServerRequestIds}), so that the client's answer meets the client-response stage with the
	 * request at hand and its cancellation reaches the server under the server's id. A request whose id is longer
	 * than {@value ServerRequestIds#MAX_SERVER_ID} bytes of JSON, which no id of the relay's could carry within its
	 * bound, is answered to the server with {@code -32600} naming the bound (logged at WARN) and never reaches the
	 * client.
	 */
	private Relayed carryToClient(JsonRpcMessage message, CallContext context) {
		RejectError uncarried = serverRequestIds.refusal(message.id(), context);
		if (uncarried != null) {
			return answerUpstream(message, uncarried);
		}
		message.node().set("id", serverRequestIds.wrap(message.node(), context));
		return new Relayed(message, true);
	}

	/** A server notification at its stage: relayed (changed or not), dropped, or replaced by an error notice. */
	private Mono<Relayed> serverNotification(JsonRpcMessage message, CallContext context, boolean onStream,
			Duration timeout, PendingRequests pending) {
		InterceptorChain<ServerNotification> chain = chains.chainAsSent(Stage.SERVER_NOTIFICATION, context);
		if (chain.isEmpty()) {
			return Mono.just(new Relayed(message, false));
		}
		ServerNotification notification = ServerNotification.of(context, message, onStream);
		return watched(Stage.SERVER_NOTIFICATION, chain.run(notification, timeout), message, pending)
			.map(verdict -> switch (verdict.kind()) {
			case DROP -> Relayed.dropped();
			case REJECT -> Relayed.replaced(substitute(message, verdict.error()));
			default -> new Relayed(message, notification.isChanged());
		});
	}

	private <V extends McpResponse> Mono<Relayed> respond(JsonRpcMessage message, CallContext context,
			McpRequest request, Duration timeout, PendingRequests pending) {
		@SuppressWarnings("unchecked")
		MethodRoutes.ResponseRoute<V> route = (MethodRoutes.ResponseRoute<V>) MethodRoutes.response(request.method());
		InterceptorChain<V> chain = chains.chain(route.stage(), context);
		if (chain.isEmpty()) {
			return Mono.just(new Relayed(message, false));
		}
		V response = route.view().create(context, message.node(), request);
		return watched(route.stage(), chain.run(response, timeout), message, pending)
			.map(verdict -> verdict.proceeds() ? new Relayed(message, response.isChanged())
					: Relayed.replaced(substitute(message, verdict.error())));
	}

	/**
	 * Whether the server's notifications on the stream of {@code context}'s request reach the client as the upstream
	 * sends them now: no interceptor of the server sees server messages or notifications in the configuration they are
	 * decided on (the current one: {@link InterceptorChains#asSent}), so a notification needs no view and no stage.
	 */
	public boolean relaysNotificationsUntouched(CallContext context) {
		return relaysNotificationsUntouched(chains.asSent(context), context.server());
	}

	/** Whether no interceptor of {@code server} sees server messages or notifications in {@code snapshot}. */
	public boolean relaysNotificationsUntouched(ConfigurationSnapshot snapshot, String server) {
		return chains.chain(Stage.REMOTE_MESSAGE, snapshot, server).isEmpty()
				&& chains.chain(Stage.SERVER_NOTIFICATION, snapshot, server).isEmpty();
	}

	/**
	 * A server-to-client request an interceptor rejected: the server gets the error, under its own id (only the
	 * server issued that id: the client could mistake it for one of its own); the client gets nothing, or a
	 * {@code notifications/message} at level {@code warning} naming the method.
	 */
	private static Relayed answerUpstream(JsonRpcMessage request, RejectError error) {
		ObjectNode answer = JsonRpcErrors.error(request.id(), error.code(), error.getMessage(), error.data());
		return new Relayed(null, true, answer, notice("warning", request.method(), error));
	}

	/**
	 * What the client gets in place of a rejected upstream message: an error with the same id for a response; a
	 * {@code notifications/message} at level {@code error} naming the method, for a notification.
	 */
	static ObjectNode substitute(JsonRpcMessage message, RejectError error) {
		if (message.id() != null) {
			return JsonRpcErrors.error(message.id(), error.code(), error.getMessage(), error.data());
		}
		return notice("error", message.method(), error);
	}

	/** A {@code notifications/message} at {@code level} telling the client that a message of {@code method} was refused. */
	private static ObjectNode notice(String level, String method, RejectError error) {
		ObjectNode data = JsonNodeFactory.instance.objectNode()
			.put("error", error.getMessage())
			.put("code", error.code())
			.put("rejectedMethod", method);
		if (error.data() != null) {
			data.set("data", error.data());
		}
		ObjectNode params = JsonNodeFactory.instance.objectNode().put("level", level).put("logger", LOGGER_NAME);
		params.set("data", data);
		return JsonRpcMessages.notification("notifications/message", params);
	}

}
