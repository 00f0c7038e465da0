package dev.mcprelay.web;

import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import dev.mcprelay.metrics.McpPaths;
import dev.mcprelay.proxy.McpRelay;
import dev.mcprelay.proxy.UpstreamRegistry;
import reactor.core.publisher.Mono;

/**
 * The MCP endpoint of each configured server ({@code /mcp/{server}}, {@code /{server}/mcp}, and {@code /mcp} when
 * there is a default server), taken as the last web filter, once the front door, CORS and the relay's observation
 * have run: the request goes to {@link McpRelay} without WebFlux's dispatch (its handler mappings, the actuator's
 * among them, are tried in turn on every request and find nothing better). Any other path, or a segment that names no
 * configured server as it stands in the raw path, goes on to {@link McpEndpoint}'s route, which answers it the same
 * way or with the relay's 404.
 */
@Component
class ConfiguredServerRoute implements WebFilter, Ordered {

	private final McpRelay relay;

	private final UpstreamRegistry upstreams;

	ConfiguredServerRoute(McpRelay relay, UpstreamRegistry upstreams) {
		this.relay = relay;
		this.upstreams = upstreams;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		String segment = McpPaths.serverSegment(exchange.getRequest().getPath().pathWithinApplication().value());
		if (segment == null || upstreams.find(segment) == null) {
			return chain.filter(exchange);
		}
		return relay.handle(segment.isEmpty() ? null : segment, exchange);
	}

}
