package dev.mcprelay.web;

import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import dev.mcprelay.http.WebFluxResponse;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.proxy.RelayAnswers;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;
import reactor.core.publisher.Mono;

/**
 * Refuses a request whose path only a lenient reading makes an MCP endpoint path ({@link McpRoute.Kind#AMBIGUOUS_PATH}:
 * {@code /%6dcp/acme}, {@code /mcp/./acme}, {@code /mcp/acme/}, …) with 400 and a JSON-RPC error, reason
 * {@code ambiguous_path}, whatever the method and before anything else looks at the request: the front door, CORS and
 * the relay never see it, nothing is forwarded. Right after the relay's observation, so that the refusal is counted and
 * logged. A client that sends such a path is mistaken or probing: the answer says which forms are served.
 */
@Component
class AmbiguousPathRefusal implements WebFilter, Ordered {

	private final McpRouting routing;

	AmbiguousPathRefusal(McpRouting routing) {
		this.routing = routing;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE + 5;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		McpRoute route = routing.routeOf(exchange);
		if (route.kind() != McpRoute.Kind.AMBIGUOUS_PATH) {
			return chain.filter(exchange);
		}
		RelayFailure refused = RelayFailures.ambiguousPath(route.problem());
		ExchangeRecord.of(exchange).failed(false, refused.reason());
		return RelayAnswers.respond(WebFluxResponse.of(exchange.getResponse()), refused, null);
	}

}
