package dev.mcprelay.proxy;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import reactor.core.publisher.Mono;

/**
 * Carries one client request to its upstream MCP server and the answer back (DESIGN section 3): resolve the
 * server, check the origin, read and parse a POST body within its cap, build the upstream headers, send, and hand
 * the response to {@link ResponseRelay}. Every failure before the client's response is committed is answered with
 * a JSON-RPC error for the request's id.
 */
@Component
public class McpRelay {

	private static final Logger log = LoggerFactory.getLogger(McpRelay.class);

	private final UpstreamRegistry upstreams;

	private final OriginPolicy originPolicy;

	private final WebClient webClient;

	private final ResponseRelay responseRelay;

	McpRelay(UpstreamRegistry upstreams, OriginPolicy originPolicy, WebClient upstreamWebClient,
			ResponseRelay responseRelay) {
		this.upstreams = upstreams;
		this.originPolicy = originPolicy;
		this.webClient = upstreamWebClient;
		this.responseRelay = responseRelay;
	}

	/** POST: one JSON-RPC message (or a batch) from the client. */
	public Mono<Void> post(String serverId, ServerWebExchange exchange) {
		return Mono.defer(() -> {
			Upstream upstream = resolve(serverId, exchange.getRequest());
			return readPayload(upstream, exchange.getRequest())
				.flatMap(payload -> forward(new RelayCall(upstream, HttpMethod.POST, payload, exchange)));
		}).onErrorResume(RelayFailure.class, failure -> answer(exchange, failure, null));
	}

	/** GET opens the server-to-client stream; DELETE ends a session. Neither has a body. */
	public Mono<Void> relayWithoutBody(HttpMethod method, String serverId, ServerWebExchange exchange) {
		return Mono.defer(() -> {
			Upstream upstream = resolve(serverId, exchange.getRequest());
			return forward(new RelayCall(upstream, method, null, exchange));
		}).onErrorResume(RelayFailure.class, failure -> answer(exchange, failure, null));
	}

	private Upstream resolve(String serverId, ServerHttpRequest request) {
		Upstream upstream = upstreams.require(serverId);
		originPolicy.check(request.getHeaders());
		return upstream;
	}

	private Mono<JsonRpcPayload> readPayload(Upstream upstream, ServerHttpRequest request) {
		long declared = request.getHeaders().getContentLength();
		if (declared > upstream.maxBufferedBody().toBytes()) {
			return Mono.error(RelayFailures.requestTooLarge(upstream.id(), upstream.maxBufferedBody()));
		}
		return BoundedBody.read(request.getBody(), upstream.maxBufferedBody(),
				() -> RelayFailures.requestTooLarge(upstream.id(), upstream.maxBufferedBody()))
			.map(body -> {
				try {
					return JsonRpcParser.parse(body);
				}
				catch (JsonRpcParseException ex) {
					throw RelayFailures.unparsableRequest(upstream.id(), ex);
				}
			});
	}

	private Mono<Void> forward(RelayCall call) {
		Upstream upstream = call.upstream();
		return Mono.defer(() -> {
			HttpHeaders headers = HeaderRules.upstreamRequestHeaders(call.exchange().getRequest().getHeaders(),
					upstream, call.payload() != null);
			NonStreamingDeadline deadline = new NonStreamingDeadline();
			WebClient.RequestBodySpec request = webClient.method(call.method())
				.uri(upstream.uri())
				.headers(h -> h.addAll(headers));
			WebClient.RequestHeadersSpec<?> withBody = call.payload() == null ? request
					: request.bodyValue(call.payload().raw());
			return withBody.exchangeToMono(response -> responseRelay.relay(call, response, deadline))
				.timeout(deadline.expiry(upstream.nonStreamingTimeout()));
		}).onErrorResume(error -> {
			RelayFailure failure = UpstreamFailures.classify(error, upstream);
			if (!(error instanceof RelayFailure)) {
				log.warn("{} /mcp/{} failed: {} ({})", call.method(), upstream.id(), failure.reason(),
						UpstreamFailures.describe(error));
			}
			return answer(call.exchange(), failure, call.payload());
		});
	}

	private static Mono<Void> answer(ServerWebExchange exchange, RelayFailure failure, JsonRpcPayload payload) {
		return FailureResponder.respond(exchange.getResponse(), failure, payload);
	}

}
