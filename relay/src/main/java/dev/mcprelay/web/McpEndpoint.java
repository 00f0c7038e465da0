package dev.mcprelay.web;

import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import dev.mcprelay.proxy.McpRelay;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;
import dev.mcprelay.virtual.VirtualRelay;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP endpoint of each configured server, at {@code /mcp/{server}} and at {@code /{server}/mcp}
 * (some clients rewrite any URL to end in {@code /mcp}), and of the default server at {@code /mcp}: POST sends a
 * message, GET opens the server-to-client stream, DELETE ends a session; any other method is answered 405.
 *
 * <p>In security mode {@code none} the MCP paths never reach WebFlux: {@link McpRoutes} serves them on Reactor Netty
 * directly. In the secured modes, this is the last web filter, once the relay's observation, CORS and the front door
 * have run, for every request
 * whose routing decision ({@link McpRouting}) is an endpoint route: a configured server, a virtual server (to
 * {@link VirtualRelay}), or a server id or default the relay answers 404 for. The request goes to {@link McpRelay} without WebFlux's dispatch (its handler mappings would
 * be tried in turn and find nothing better), and the relay writes the response itself, so that streams flow event by
 * event. Every other path goes on to WebFlux's routes (the actuator, RFC 9728 metadata, the demo upstream), and what
 * none of them serves is answered 404 by {@link JsonRpcErrorHandler}. The path is never read here: the decision is.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http">MCP
 * Streamable HTTP</a>
 */
@Component
class McpEndpoint implements WebFilter, Ordered {

	private final McpRelay relay;

	private final VirtualRelay virtualRelay;

	private final McpRouting routing;

	McpEndpoint(McpRelay relay, VirtualRelay virtualRelay, McpRouting routing) {
		this.relay = relay;
		this.virtualRelay = virtualRelay;
		this.routing = routing;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		McpRoute route = routing.routeOf(exchange);
		if (route.kind() == McpRoute.Kind.VIRTUAL) {
			return virtualRelay.handle(new WebFluxExchange(exchange, route));
		}
		return route.isEndpoint() ? relay.handle(new WebFluxExchange(exchange, route)) : chain.filter(exchange);
	}

}
