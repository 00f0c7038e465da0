package dev.mcprelay.proxy;

import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.bridge.VersionBridge;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.intercept.RequestInterception;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import dev.mcprelay.security.CredentialHeaders;
import dev.mcprelay.security.SessionBinding;
import dev.mcprelay.tracing.ExchangeTrace;
import dev.mcprelay.tracing.McpTelemetry;
import reactor.core.publisher.Mono;

/**
 * Carries one client request to its upstream MCP server and the answer back (DESIGN section 3): resolve the
 * server, check the origin and host, take the request's place in its session's order ({@link SessionOrder}), read
 * and parse a POST body within its cap, check the headers that mirror it ({@link MirroredHeaders},
 * {@link ParameterHeaderChecks}), begin its telemetry, run the request stages (GET and DELETE meet the
 * user-request stage), and hand what goes upstream to {@link UpstreamForwarding}. Every failure before the client's response is
 * committed is answered with a JSON-RPC error for the request's id; when the upstream is at fault, the error stage
 * sees it first.
 */
@Component
public class McpRelay {

	private static final Logger log = LoggerFactory.getLogger(McpRelay.class);

	private final UpstreamRegistry upstreams;

	private final OriginPolicy originPolicy;

	private final RequestInterception requestInterception;

	private final SessionOrder sessionOrder;

	private final SessionStreams sessionStreams;

	private final CredentialHeaders credentialHeaders;

	private final SessionBinding sessionBinding;

	private final McpTelemetry telemetry;

	private final UpstreamForwarding forwarding;

	private final OpenStreams openStreams;

	private final ParameterHeaderChecks parameterHeaders;

	McpRelay(UpstreamRegistry upstreams, OriginPolicy originPolicy, RequestInterception requestInterception,
			SessionOrder sessionOrder, SessionStreams sessionStreams, CredentialHeaders credentialHeaders,
			SessionBinding sessionBinding, McpTelemetry telemetry, UpstreamForwarding forwarding,
			OpenStreams openStreams, ParameterHeaderChecks parameterHeaders) {
		this.parameterHeaders = parameterHeaders;
		this.openStreams = openStreams;
		this.telemetry = telemetry;
		this.forwarding = forwarding;
		this.credentialHeaders = credentialHeaders;
		this.sessionBinding = sessionBinding;
		this.upstreams = upstreams;
		this.originPolicy = originPolicy;
		this.requestInterception = requestInterception;
		this.sessionOrder = sessionOrder;
		this.sessionStreams = sessionStreams;
	}

	/**
	 * One request on an MCP path, by its HTTP method: POST sends a message ({@link #post}), GET opens the
	 * server-to-client stream and DELETE ends a session ({@link #relayWithoutBody}), anything else is refused with
	 * 405 ({@link #refuseMethod}). The exchange's route is an endpoint route ({@link McpRoute#isEndpoint()}): a
	 * configured server, or one the relay answers 404 for. A POST or DELETE is in flight until its response ended,
	 * and shutdown's grace period waits for it ({@link OpenStreams}).
	 */
	public Mono<Void> handle(RelayExchange exchange) {
		McpRoute route = exchange.route();
		HttpMethod method = exchange.method();
		if (HttpMethod.POST.equals(method)) {
			return openStreams.inFlight(post(route, exchange));
		}
		if (HttpMethod.DELETE.equals(method)) {
			return openStreams.inFlight(relayWithoutBody(method, route, exchange));
		}
		if (HttpMethod.GET.equals(method)) {
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
			return readPayload(upstream, exchange).doOnNext(record::payload)
				.flatMap(read -> AccessCheckedBeforeForwarding.stillServed(exchange, upstream, read, payload -> {
				if (payload.messages().isEmpty()) {
					return EarlyAnswers.answerInvalidBatch(exchange, payload);
				}
				RelayFailure mismatch = MirroredHeaders.mismatch(exchange.requestHeaderView(), payload, upstream.id());
				if (mismatch != null) {
					return EarlyAnswers.answerEarly(exchange, mismatch, payload);
				}
				Map<JsonNode, ParameterHeaderChecks.SentCall> sent = ParameterHeaders.anyIn(exchange.requestHeaders())
						? ParameterHeaderChecks.sentCalls(payload) : null;
				return intercepted(upstream, exchange, context, payload, sent, order);
			})).doFinally(signal -> order.release());
		}).onErrorResume(RelayFailure.class, failure -> RelayFailures.isUnknownSession(failure)
				? answerByIds(route, exchange, failure)
				: EarlyAnswers.answerEarly(exchange, failure, exchange.record().payload()));
	}

	/**
	 * A POST whose {@code Mcp-Method} and {@code Mcp-Name} agree with its body: its telemetry begins, the request stages
	 * run, and what they let go is forwarded (or the plan is answered here when nothing goes upstream). Its
	 * {@code Mcp-Param-*} headers ({@code sent}: its calls as the client sent them, {@code null} when it carries none)
	 * are checked after the stages and before anything goes upstream
	 * ({@link ParameterHeaderChecks}): a tool the stages hide from the caller is answered as one that does not exist
	 * whatever its headers say, and a request the stages refuse (a rate limit) costs no tool listing.
	 */
	private Mono<Void> intercepted(Upstream upstream, RelayExchange exchange, CallContext context,
			JsonRpcPayload payload, Map<JsonNode, ParameterHeaderChecks.SentCall> sent, SessionOrder.Ticket order) {
		ExchangeRecord record = exchange.record();
		ExchangeTrace trace = telemetry.begin(payload, context);
		record.trace(trace);
		return requestInterception.apply(payload, context, upstream.nonStreamingTimeout(), trace).flatMap(plan -> {
			record.refusals(plan.stops());
			plan.pending().watch(trace);
			if (!plan.forwardsAnything()) {
				return EarlyAnswers.answerLocally(exchange, plan, sessionStreams, upstream.id());
			}
			Mono<Void> headersReady = parameterHeaders.beforeForwarding(exchange.requestHeaderView(), sent,
					payload.batch(), VersionBridge.isBridgedSession(sessionId(exchange)), plan, context, upstream.id());
			if (headersReady != null) {
				return headersReady.then(Mono.defer(() -> forwarding.forward(
						new RelayCall(upstream, HttpMethod.POST, exchange, context, plan, order, trace))));
			}
			return forwarding.forward(new RelayCall(upstream, HttpMethod.POST, exchange, context, plan, order, trace));
		});
	}

	/**
	 * Answers a refusal of a POST decided before its body was read (a session that is not the caller's) by the ids of
	 * the body's requests, as every error answers: the body is read within its cap only to learn them, and nothing of it
	 * goes anywhere. A body that cannot be read or parsed is answered id-less.
	 */
	private Mono<Void> answerByIds(McpRoute route, RelayExchange exchange, RelayFailure failure) {
		return readPayload(upstreams.in(exchange.configuration()).require(route), exchange).doOnNext(exchange.record()::payload)
			.map(java.util.Optional::of)
			.onErrorReturn(java.util.Optional.empty())
			.defaultIfEmpty(java.util.Optional.empty())
			.flatMap(payload -> EarlyAnswers.answerEarly(exchange, failure, payload.orElse(null)));
	}

	/** GET opens the server-to-client stream; DELETE ends a session. Neither has a body. */
	private Mono<Void> relayWithoutBody(HttpMethod method, McpRoute route, RelayExchange exchange) {
		return Mono.defer(() -> {
			Upstream upstream = resolve(route, exchange);
			SessionOrder.Ticket order = enter(upstream, exchange);
			CallContext context = contextOf(upstream, exchange);
			return requestInterception.applyWithoutBody(method, context, upstream.nonStreamingTimeout())
				.flatMap(verdict -> verdict.proceeds()
						? forwarding.forward(new RelayCall(upstream, method, exchange, context, null, order, ExchangeTrace.NONE))
						: EarlyAnswers.refuseWithoutBody(exchange, verdict))
				.doFinally(signal -> order.release());
		}).onErrorResume(RelayFailure.class, failure -> EarlyAnswers.answerEarly(exchange, failure, null));
	}

	/** What every stage of the request sees of it; a virtual server's message to a member names the virtual server. */
	private CallContext contextOf(Upstream upstream, RelayExchange exchange) {
		VirtualMembers virtual = exchange.virtualMembers();
		CallContext context = new CallContext(upstream.id(), SpringRequestHeaders.of(exchange.requestHeaderView()),
				exchange.caller(), credentialHeaders.hiddenFrom(exchange.configuration(), upstream.id()),
				virtual == null ? null : virtual.virtualServer());
		if (virtual != null && virtual.catalogue()) {
			context.attributes().put(VirtualMembers.CATALOGUE_LISTING, Boolean.TRUE);
		}
		return CallConfiguration.attach(context, exchange.configuration());
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
		Upstream upstream = upstreams.in(exchange.configuration()).require(route);
		originPolicy.check(exchange.requestHeaderView());
		SingleValuedHeaders.requireOneValue(exchange.requestHeaderView(), upstream.properties(), upstream.id());
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

	/** The session id the request carries: after {@link #admitSession}, the session's own. */
	static String sessionId(RelayExchange exchange) {
		return exchange.requestHeaders().get(HeaderRules.MCP_SESSION_ID);
	}

	/**
	 * The POST body, parsed, its bytes and its tree counted in the request's memory budget ({@link BodyCharge}), or
	 * the body the exchange's maker parsed ({@link RelayExchange#parsedBody()}, within the same cap); empty
	 * when the HTTP layer refused the request while it arrived (a malformed chunk or
	 * trailer): Reactor Netty then answers 400 itself and ends the body as if it were complete, so what was read
	 * must never be forwarded.
	 */
	private Mono<JsonRpcPayload> readPayload(Upstream upstream, RelayExchange exchange) {
		JsonRpcPayload parsed = exchange.parsedBody();
		if (parsed != null) {
			// parsed in this process by the exchange's maker (RelayExchange#parsedBody): bounded as a body read here is
			return parsed.raw().length > upstream.maxBufferedBody().toBytes()
					? Mono.error(RelayFailures.requestTooLarge(upstream.id(), upstream.maxBufferedBody()))
					: Mono.just(parsed);
		}
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
			.flatMap(body -> Mono.deferContextual(context -> {
				try {
					return Mono.just(BodyCharge.parse(context, body, upstream.id()));
				}
				catch (JsonRpcParseException ex) {
					return Mono.error(RelayFailures.unparsableRequest(upstream.id(), ex));
				}
			}));
	}

}
