package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.Caller;
import dev.mcprelay.http.ClientConnectionClosed;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.intercept.FailedRequestAnswers;
import dev.mcprelay.intercept.InboundPlan;
import dev.mcprelay.transport.ServerRequestGate;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.upstream.UpstreamTokens;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The upstream half of a client request ({@link McpRelay} makes the decisions before it): wait for the session's
 * earlier requests, build the upstream headers (the header rules, then interceptors' changes, then the relay's access
 * token for a server with {@code oauth2}), send the body (with its trace context, {@link RelayCall#trace()}), and hand
 * the response to {@link ResponseRelay}. An upstream's 401 to the relay's token is retried once with a fresh token;
 * a failure is answered with a JSON-RPC error.
 */
@Component
class UpstreamForwarding {

	private static final Logger log = LoggerFactory.getLogger(UpstreamForwarding.class);

	private static final String INITIALIZED = "notifications/initialized";

	private final UpstreamTransports transports;

	private final ResponseRelay responseRelay;

	private final FailedRequestAnswers failedRequestAnswers;

	private final SessionOrder sessionOrder;

	private final RelaySessions relaySessions;

	private final UpstreamTokens tokens;

	private final OpenStreams openStreams;

	private final ServerRequestGates gates;

	UpstreamForwarding(UpstreamTransports transports, ResponseRelay responseRelay,
			FailedRequestAnswers failedRequestAnswers, SessionOrder sessionOrder, RelaySessions relaySessions,
			UpstreamTokens tokens, OpenStreams openStreams, ServerRequestGates gates) {
		this.gates = gates;
		this.openStreams = openStreams;
		this.transports = transports;
		this.responseRelay = responseRelay;
		this.failedRequestAnswers = failedRequestAnswers;
		this.sessionOrder = sessionOrder;
		this.relaySessions = relaySessions;
		this.tokens = tokens;
	}

	/**
	 * Sends {@code call} upstream once the session's earlier requests went (its {@link SessionOrder} ticket's turn),
	 * a POST once its server is found still configured and its caller's access still granted then
	 * ({@link AccessCheckedBeforeForwarding}: a reload may have come while it waited), and relays the answer; a failure before the client's response is committed is answered with a JSON-RPC error
	 * for each request still waiting, which the error stage sees first when the upstream is at fault. The relay's
	 * shutdown cutting an exchange whose answer has not begun streaming ({@link OpenStreams}) is answered so too, with
	 * {@code relay_shutting_down}, logged and recorded as the relay's doing, not the upstream's; and so is a reload
	 * ending a GET or {@code subscriptions/listen} whose upstream has not answered yet
	 * ({@link OpenStreams#endingBeforeItsAnswer}: {@code server_removed}, {@code access_withdrawn},
	 * {@code session_ended}, counted as a stream it ended).
	 *
	 * @return completes when the response to the client ended; never fails with a {@link RelayFailure}
	 */
	Mono<Void> forward(RelayCall call) {
		Upstream upstream = call.upstream();
		SessionOrder.Ticket order = call.order();
		// A POST or DELETE is delivered once it is written; a GET once the upstream answered its headers (it holds the
		// stream from then on), or shortly after it is written if the upstream holds its headers back.
		Runnable onWritten = HttpMethod.GET.equals(call.method())
				? () -> order.releaseAfter(SessionOrder.GET_HEADERS_GRACE) : order::release;
		// a POST read before a reload may have waited its turn past it: checked again right before it goes
		Mono<Void> sent = call.plan() == null ? Mono.defer(() -> send(call, onWritten, true))
				: Mono.defer(() -> AccessCheckedBeforeForwarding.stillServed(call.exchange(), upstream, call,
						checked -> send(checked, onWritten, true)));
		return order.turn().then(sent).onErrorResume(error -> {
			if (error instanceof ClientConnectionClosed) {
				// the client left while its answer was being written: its route records that, nobody is answered
				return Mono.error(error);
			}
			RelayFailure failure = UpstreamFailures.classify(error, upstream);
			if (error instanceof RelayShuttingDownException cut && cut.reloadReason() != null) {
				// a reload ended a server's stream before its upstream answered: as it ends one that streams
				openStreams.endedBeforeItsAnswer(call, cut);
				call.exchange().record().cutByRelay(failure.reason());
				log.info("{} /mcp/{}: a configuration reload ended it before the upstream's answer came ({}); its "
						+ "upstream exchange is cancelled", call.method(), upstream.id(), failure.reason());
				return answerFailure(call, failure);
			}
			if (error instanceof RelayShuttingDownException) {
				call.exchange().record().cutByShutdown();
				log.info("{} /mcp/{}: the relay shut down before the upstream's answer came; {} request(s) answered "
						+ "with an error ({})", call.method(), upstream.id(), call.pending().remaining().size(),
						failure.reason());
				return answerFailure(call, failure);
			}
			call.exchange().record().failed(failure.outcome(), failure.reason());
			if (!(error instanceof RelayFailure)) {
				log.warn("{} /mcp/{} failed: {} ({})", call.method(), upstream.id(), failure.reason(),
						UpstreamFailures.describe(error));
			}
			return answerFailure(call, failure);
		});
	}

	/**
	 * Sends the request upstream with its headers (and, for a server with {@code oauth2}, its current access token) and
	 * relays the answer. An upstream's 401 to a token of the relay's drops that token and, the first time, sends the
	 * request again with a fresh one (the 401 came from the upstream's authentication, before its handler).
	 */
	private Mono<Void> send(RelayCall call, Runnable onWritten, boolean mayRetry) {
		Upstream upstream = call.upstream();
		if (!tokens.appliesTo(call.exchange().configuration(), upstream.id())) {
			// most servers: no token to wait for, nothing on the path but the exchange
			return exchange(call, onWritten, null, null, false);
		}
		String callerToken = callerToken(call);
		return tokens.tokenFor(call.exchange().configuration(), upstream.id(), callerToken,
				upstream.nonStreamingTimeout())
			.flatMap(token -> exchange(call, onWritten, token, callerToken, mayRetry))
			.onErrorResume(RefusedToken.class, refused -> send(call, onWritten, false));
	}

	/** The upstream exchange itself, with the relay's access token for the upstream ({@code null}: none). */
	private Mono<Void> exchange(RelayCall call, Runnable onWritten, String token, String callerToken,
			boolean mayRetry) {
		Upstream upstream = call.upstream();
		SessionOrder.Ticket order = call.order();
		HttpHeaders headers = HeaderRules.upstreamRequestHeaders(call.exchange().requestHeaders(),
				call.context().caller(), upstream, call.plan() != null);
		call.context().upstreamHeaders().forEachChange((name, value) -> {
			if (value == null) {
				headers.remove(name);
			}
			else {
				headers.set(name, value);
			}
		});
		ParameterHeaderChecks.mirrorForwarded(headers, call.context(), call.plan());
		BridgedParameterHeaders.write(headers, call.context(), call.plan());
		if (token != null) {
			headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + token);
		}
		byte[] body = call.plan() == null ? null
				: call.trace().upstreamBody(call.plan(), headers, upstream.uri().getHost(), port(upstream));
		NonStreamingDeadline deadline = new NonStreamingDeadline();
		UpstreamRequest request = new UpstreamRequest(upstream.id(), call.method(), upstream.uri(), headers, body,
				call.context().caller().id(), onWritten);
		return deadline.bound(transports.of(upstream).exchange(request, response -> {
			if (token != null && response.statusCode().value() == 401) {
				tokens.drop(call.exchange().configuration(), upstream.id(), callerToken, token);
				if (mayRetry) {
					log.info("{} /mcp/{}: the upstream refused the relay's token (401); asking for a new one",
							call.method(), upstream.id());
					return response.releaseBody().then(Mono.error(RefusedToken.INSTANCE));
				}
			}
			order.release();
			if (call.plan() != null && response.statusCode().is2xxSuccessful()
					&& call.plan().payload().contains(INITIALIZED)) {
				sessionOrder.expectStream(upstream.id(), McpRelay.sessionId(call.exchange()));
			}
			return relaySessions.opened(call, response).then(responseRelay.relay(call, response, deadline));
		}).contextWrite(Context.of(ServerRequestGate.KEY, gates.of(call))), upstream.nonStreamingTimeout(),
				openStreams.endingBeforeItsAnswer(call));
	}

	/** The upstream's port, for telemetry: the URL's, else its scheme's. */
	private static int port(Upstream upstream) {
		int port = upstream.uri().getPort();
		return port >= 0 ? port : "https".equalsIgnoreCase(upstream.uri().getScheme()) ? 443 : 80;
	}

	/** The caller's own bearer token, for a server that exchanges it ({@code token-exchange}); else {@code null}. */
	private String callerToken(RelayCall call) {
		if (!tokens.appliesTo(call.exchange().configuration(), call.upstream().id())
				|| call.context().caller().kind() != Caller.Kind.JWT) {
			return null;
		}
		String authorization = call.exchange().requestHeaders().get(HttpHeaders.AUTHORIZATION);
		return authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
				? authorization.substring(7).strip() : null;
	}

	/** The upstream refused the relay's token: the request goes again with a fresh one. */
	private static final class RefusedToken extends RuntimeException {

		static final RefusedToken INSTANCE = new RefusedToken();

		private RefusedToken() {
			super("the upstream refused the relay's token", null, false, false);
		}

	}

	/**
	 * Answers a POST whose upstream exchange failed: each request still waiting gets the failure, unless the error
	 * stage gives it a result; the relay's own answers join them. The status is the failure's unless every answer is
	 * a result.
	 */
	private Mono<Void> answerFailure(RelayCall call, RelayFailure failure) {
		RelayResponse response = call.exchange().response();
		InboundPlan plan = call.plan();
		if (plan == null || !failure.isUpstreamFault() || response.committed() || call.pending().isEmpty()) {
			return RelayAnswers.respond(response, failure, plan == null ? null : plan.payload());
		}
		return failedRequestAnswers
			.answerFailure(call.pending().remaining(), call.context(), failure.code(), failure.getMessage(),
					failure.data(), failure.reason(), call.upstream().nonStreamingTimeout())
			.flatMap(answers -> {
				List<ObjectNode> all = new ArrayList<>(answers);
				all.addAll(plan.localAnswers());
				boolean allResults = all.stream().noneMatch(answer -> answer.has("error"));
				return RelayAnswers.answer(response, allResults ? HttpStatus.OK : failure.status(), all,
						plan.payload().batch());
			});
	}

}
