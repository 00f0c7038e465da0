package dev.mcprelay.metrics;

import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;
import dev.mcprelay.security.ExchangeCaller;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * Observes every request whose routing decision ({@link McpRouting}) is the MCP endpoint's or a refused lenient form of
 * it: attaches an {@link ExchangeRecord}, born with the server the decision names, for the relay to fill in, counts the
 * body bytes the client receives, and when the response ends (completed, failed, or cancelled by a client that went
 * away) records the meters and writes the access-log line. Other paths (actuator, the demo) are not observed. The
 * first web filter: the decision it reads is the one every later stage reads. (In security mode {@code none} the MCP
 * paths are observed the same way on Reactor Netty's route, {@code web.McpRoutes}, and never reach this filter.)
 */
@Component
class RelayObservationFilter implements WebFilter, Ordered {

	private final ExchangeObservations observations;

	private final McpRouting routing;

	RelayObservationFilter(ExchangeObservations observations, McpRouting routing) {
		this.observations = observations;
		this.routing = routing;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		McpRoute route = routing.routeOf(exchange);
		if (!route.isObserved()) {
			return chain.filter(exchange);
		}
		ExchangeRecord record = ExchangeRecord.attach(exchange, route);
		ServerWebExchange observed = exchange.mutate()
			.response(new CountingResponse(exchange.getResponse(), record))
			.build();
		return chain.filter(observed)
			.doFinally(signal -> observations.ended(record, ExchangeCaller.of(exchange), signal == SignalType.CANCEL));
	}

}
