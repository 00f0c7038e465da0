package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.intercept.FailedRequestAnswers;
import dev.mcprelay.intercept.InboundPlan;
import dev.mcprelay.intercept.RequestInterception;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import dev.mcprelay.security.CredentialHeaders;
import dev.mcprelay.security.SessionBinding;
import dev.mcprelay.tracing.ExchangeTrace;
import dev.mcprelay.tracing.McpTelemetry;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.upstream.UpstreamTokens;
import reactor.core.publisher.Mono;

/**
 * Carries one client request to its upstream MCP server and the answer back (DESIGN section 3): resolve the
 * server, check the origin and host, take the request's place in its session's order ({@link SessionOrder}), read
 * and parse a POST body within its cap, run the request stages (GET and DELETE meet the user-request stage), build
 * the upstream headers (with those interceptors set), wait for the session's earlier requests, send, and hand the
 * response to {@link ResponseRelay}. Every failure before the client's response is
 * committed is answered with a JSON-RPC error for the request's id; when the upstream is at fault, the error stage
 * sees it first.
 */
@Component
public class McpRelay {

	private static final Logger log = LoggerFactory.getLogger(McpRelay.class);

	private static final String INITIALIZED = "notifications/initialized";

	private final UpstreamRegistry upstreams;

	private final OriginPolicy originPolicy;

	private final UpstreamTransports transports;

	private final ResponseRelay responseRelay;

	private final RequestInterception requestInterception;

	private final FailedRequestAnswers failedRequestAnswers;

	private final SessionOrder sessionOrder;

	private final RelaySessions relaySessions;

	private final SessionStreams sessionStreams;

	private final CredentialHeaders credentialHeaders;

	private final SessionBinding sessionBinding;

	private final UpstreamTokens tokens;

	private final McpTelemetry telemetry;

	McpRelay(UpstreamRegistry upstreams, OriginPolicy originPolicy, UpstreamTransports transports,
			ResponseRelay responseRelay, RequestInterception requestInterception,
			FailedRequestAnswers failedRequestAnswers, SessionOrder sessionOrder, RelaySessions relaySessions,
			SessionStreams sessionStreams, CredentialHeaders credentialHeaders, SessionBinding sessionBinding,
			UpstreamTokens tokens, McpTelemetry telemetry) {
		this.tokens = tokens;
		this.telemetry = telemetry;
		this.credentialHeaders = credentialHeaders;
		this.sessionBinding = sessionBinding;
		this.upstreams = upstreams;
		this.originPolicy = originPolicy;
		this.transports = transports;
		this.responseRelay = responseRelay;
		this.requestInterception = requestInterception;
		this.failedRequestAnswers = failedRequestAnswers;
		this.sessionOrder = sessionOrder;
		this.relaySessions = relaySessions;
		this.sessionStreams = sessionStreams;
	}

	/**
	 * One request on an MCP path, by its HTTP method: POST sends a message ({@link #post}), GET opens the
	 * server-to-client stream and DELETE ends a session ({@link #relayWithoutBody}), anything else is refused with
	 * 405 ({@link #refuseMethod}). The exchange's route is an endpoint route ({@link McpRoute#isEndpoint()}): a
	 * configured server, or one the relay answers 404 for.
	 */
	public Mono<Void> handle(RelayExchange exchange) {
		McpRoute route = exchange.route();
		HttpMethod method = exchange.method();
		if (HttpMethod.POST.equals(method)) {
			return post(route, exchange);
		}
		if (HttpMethod.GET.equals(method) || HttpMethod.DELETE.equals(method)) {
			return relayWithoutBody(method, route, exchange);
		}
		return refuseMethod(route, exchange);
	}

	/** POST: one JSON-RPC message (or a batch) from the client. */
	private Mono<Void> post(McpRoute route, RelayExchange exchange) {
		return Mono.defer(() -> {
			ExchangeRecord record = exchange.record();
			Upstream upstream = resolve(route, exchange);
			SessionOrder.Ticket order = enter(upstream, exchange);
			CallContext context = contextOf(upstream, exchange);
			return readPayload(upstream, exchange).doOnNext(record::payload).flatMap(payload -> {
				if (payload.messages().isEmpty()) {
					return EarlyAnswers.answerInvalidBatch(exchange, payload);
				}
				RelayFailure mismatch = MirroredHeaders.mismatch(exchange.requestHeaderView(), payload, upstream.id());
				if (mismatch != null) {
					return EarlyAnswers.answerEarly(exchange, mismatch, payload);
				}
				ExchangeTrace trace = telemetry.begin(payload, context);
				record.trace(trace);
				return requestInterception.apply(payload, context, upstream.nonStreamingTimeout(), trace)
					.flatMap(plan -> {
						plan.pending().watch(trace);
						return plan.forwardsAnything()
								? forward(new RelayCall(upstream, HttpMethod.POST, exchange, context, plan, order, trace))
								: EarlyAnswers.answerLocally(exchange, plan, sessionStreams, upstream.id());
					});
			}).doFinally(signal -> order.release());
		}).onErrorResume(RelayFailure.class, failure -> EarlyAnswers.answerEarly(exchange, failure, null));
	}

	/** GET opens the server-to-client stream; DELETE ends a session. Neither has a body. */
	private Mono<Void> relayWithoutBody(HttpMethod method, McpRoute route, RelayExchange exchange) {
		return Mono.defer(() -> {
			Upstream upstream = resolve(route, exchange);
			SessionOrder.Ticket order = enter(upstream, exchange);
			CallContext context = contextOf(upstream, exchange);
			return requestInterception.applyWithoutBody(method, context, upstream.nonStreamingTimeout())
				.flatMap(verdict -> verdict.proceeds()
						? forward(new RelayCall(upstream, method, exchange, context, null, order, ExchangeTrace.NONE))
						: EarlyAnswers.refuseWithoutBody(exchange, verdict))
				.doFinally(signal -> order.release());
		}).onErrorResume(RelayFailure.class, failure -> EarlyAnswers.answerEarly(exchange, failure, null));
	}

	/** What every stage of the request sees of it; a virtual server's message to a member names the virtual server. */
	private CallContext contextOf(Upstream upstream, RelayExchange exchange) {
		VirtualMembers virtual = exchange.virtualMembers();
		return new CallContext(upstream.id(), SpringRequestHeaders.of(exchange.requestHeaderView()),
				exchange.caller(),
				credentialHeaders.hiddenFrom(upstream.id()), virtual == null ? null : virtual.virtualServer());
	}

	/** Any other HTTP method on a configured server: 405 with {@code Allow}; nothing is forwarded. */
	private Mono<Void> refuseMethod(McpRoute route, RelayExchange exchange) {
		return Mono.<Void>defer(() -> {
			Upstream upstream = resolve(route, exchange);
			return Mono.error(RelayFailures.methodNotAllowed(upstream.id(), exchange.method()));
		}).onErrorResume(RelayFailure.class, failure -> EarlyAnswers.answerEarly(exchange, failure, null));
	}

	/** The configured upstream the route names, once the request's origin is allowed; recorded for metrics. */
	private Upstream resolve(McpRoute route, RelayExchange exchange) {
		Upstream upstream = upstreams.require(route);
		originPolicy.check(exchange.requestHeaderView());
		requireReadableContentType(exchange.requestHeaderView(), upstream);
		exchange.record().server(upstream.id());
		admitSession(upstream, exchange);
		return upstream;
	}

	/**
	 * Checks the session id the client presents against the caller that presents it ({@link SessionBinding}), and
	 * puts the session's own id in its place for everything after (the upstream, interceptors, the session's order): an
	 * id bound to another caller or server, altered or invented, is an unknown session (404), and nothing is forwarded.
	 */
	private void admitSession(Upstream upstream, RelayExchange exchange) {
		if (!sessionBinding.enabled()) {
			return;
		}
		String presented = sessionId(exchange);
		if (presented == null) {
			return;
		}
		String sessionId = sessionBinding.unbind(upstream.id(), exchange.caller(), presented);
		if (sessionId == null) {
			throw RelayFailures.unknownSession(upstream.id());
		}
		exchange.requestHeaders().set(HeaderRules.MCP_SESSION_ID, sessionId);
	}

	/** A {@code Content-Type} that is no media type is the client's mistake, not something to send upstream. */
	private static void requireReadableContentType(HttpHeaders headers, Upstream upstream) {
		try {
			headers.getContentType();
		}
		catch (InvalidMediaTypeException ex) {
			throw RelayFailures.unreadableContentType(upstream.id());
		}
	}

	/** The request's place in its upstream session, taken on arrival, before anything that takes time. */
	private SessionOrder.Ticket enter(Upstream upstream, RelayExchange exchange) {
		return sessionOrder.enter(upstream.id(), sessionId(exchange),
				HttpMethod.GET.equals(exchange.method()));
	}

	private static String sessionId(RelayExchange exchange) {
		return exchange.requestHeaders().get(HeaderRules.MCP_SESSION_ID);
	}

	/**
	 * The POST body, parsed; empty when the HTTP layer refused the request while it arrived (a malformed chunk or
	 * trailer): Reactor Netty then answers 400 itself and ends the body as if it were complete, so what was read
	 * must never be forwarded.
	 */
	private Mono<JsonRpcPayload> readPayload(Upstream upstream, RelayExchange exchange) {
		long declared = exchange.requestHeaderView().getContentLength();
		if (declared > upstream.maxBufferedBody().toBytes()) {
			return Mono.error(RelayFailures.requestTooLarge(upstream.id(), upstream.maxBufferedBody()));
		}
		return BoundedBody.read(exchange.requestBody(), upstream.maxBufferedBody(),
				() -> RelayFailures.requestTooLarge(upstream.id(), upstream.maxBufferedBody()))
			.filter(body -> {
				if (exchange.answeredByServer()) {
					log.debug("{} /mcp/{}: the request was malformed on the wire and refused by the HTTP layer",
							exchange.method(), upstream.id());
					exchange.record().failed(false, "malformed_http_request");
					return false;
				}
				return true;
			})
			.map(body -> {
				try {
					return JsonRpcParser.parseClientBody(body);
				}
				catch (JsonRpcParseException ex) {
					throw RelayFailures.unparsableRequest(upstream.id(), ex);
				}
			});
	}

	private Mono<Void> forward(RelayCall call) {
		Upstream upstream = call.upstream();
		SessionOrder.Ticket order = call.order();
		// A POST or DELETE is delivered once it is written; a GET once the upstream answered its headers (it holds the
		// stream from then on), or shortly after it is written if the upstream holds its headers back.
		Runnable onWritten = HttpMethod.GET.equals(call.method())
				? () -> order.releaseAfter(SessionOrder.GET_HEADERS_GRACE) : order::release;
		return order.turn().then(Mono.defer(() -> send(call, onWritten, true))).onErrorResume(error -> {
			RelayFailure failure = UpstreamFailures.classify(error, upstream);
			call.exchange().record().failed(failure.isUpstreamFault(), failure.reason());
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
		if (!tokens.appliesTo(upstream.id())) {
			// most servers: no token to wait for, nothing on the path but the exchange
			return exchange(call, onWritten, null, null, false);
		}
		String callerToken = callerToken(call);
		return tokens.tokenFor(upstream.id(), callerToken, upstream.nonStreamingTimeout())
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
		if (token != null) {
			headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + token);
		}
		byte[] body = call.plan() == null ? null
				: call.trace().upstreamBody(call.plan(), headers, upstream.uri().getHost(), port(upstream));
		NonStreamingDeadline deadline = new NonStreamingDeadline();
		UpstreamRequest request = new UpstreamRequest(upstream.id(), call.method(), upstream.uri(), headers, body,
				call.context().caller().id(), onWritten);
		return transports.of(upstream).exchange(request, response -> {
			if (token != null && response.statusCode().value() == 401) {
				tokens.drop(upstream.id(), callerToken);
				if (mayRetry) {
					log.info("{} /mcp/{}: the upstream refused the relay's token (401); asking for a new one",
							call.method(), upstream.id());
					return response.releaseBody().then(Mono.error(RefusedToken.INSTANCE));
				}
			}
			order.release();
			if (call.plan() != null && response.statusCode().is2xxSuccessful()
					&& call.plan().payload().contains(INITIALIZED)) {
				sessionOrder.expectStream(upstream.id(), sessionId(call.exchange()));
			}
			return relaySessions.opened(call, response).then(responseRelay.relay(call, response, deadline));
		}).timeout(deadline.expiry(upstream.nonStreamingTimeout()));
	}

	/** The upstream's port, for telemetry: the URL's, else its scheme's. */
	private static int port(Upstream upstream) {
		int port = upstream.uri().getPort();
		return port >= 0 ? port : "https".equalsIgnoreCase(upstream.uri().getScheme()) ? 443 : 80;
	}

	/** The caller's own bearer token, for a server that exchanges it ({@code token-exchange}); else {@code null}. */
	private String callerToken(RelayCall call) {
		if (!tokens.appliesTo(call.upstream().id()) || call.context().caller().kind() != Caller.Kind.JWT) {
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
