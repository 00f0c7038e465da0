package dev.mcprelay.metrics;

import dev.mcprelay.security.Caller;

import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * Observes every request on the MCP paths ({@link McpPaths}): attaches an {@link ExchangeRecord} for the relay to fill in, counts the
 * body bytes the client receives, and when the response ends (completed, failed, or cancelled by a client that went
 * away) records the meters and writes the access-log line. Other paths (actuator, the demo) are not observed.
 */
@Component
class RelayObservationFilter implements WebFilter, Ordered {

	private final RequestMeters meters;

	private final AccessLog accessLog;

	RelayObservationFilter(RequestMeters meters, AccessLog accessLog) {
		this.meters = meters;
		this.accessLog = accessLog;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		if (!McpPaths.isMcpPath(exchange.getRequest().getPath().pathWithinApplication().value())) {
			return chain.filter(exchange);
		}
		ExchangeRecord record = ExchangeRecord.attach(exchange);
		ServerWebExchange observed = exchange.mutate()
			.response(new CountingResponse(exchange.getResponse(), record))
			.build();
		return chain.filter(observed).doFinally(signal -> {
			record.caller(Caller.of(exchange));
			if (signal == SignalType.CANCEL) {
				record.clientLeft();
			}
			meters.record(record);
			accessLog.write(record);
		});
	}

}
