package dev.mcprelay.web;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;

import dev.mcprelay.proxy.McpRelay;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP endpoint of each configured server, at {@code /mcp/{server}} and at {@code /{server}/mcp}
 * (some clients rewrite any URL to end in {@code /mcp}), and of the default server at {@code /mcp}: POST sends a
 * message, GET opens the server-to-client stream, DELETE ends a session; any other method is answered 405. Each is
 * relayed to the configured upstream; the relay writes the response to the exchange itself, so that streams flow
 * event by event, and the route returns no {@link ServerResponse} of its own. A functional route: it costs no
 * argument resolution per request. It comes after every other route ({@code /{server}/mcp} would match the relay's
 * own paths), which the relay refuses as server ids. A request for a configured server, the usual case, is taken
 * before WebFlux's dispatch by {@link ConfiguredServerRoute}; this route answers the rest (an unknown server, a
 * percent-encoded path) with the same relay.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http">MCP
 * Streamable HTTP</a>
 */
@Configuration(proxyBeanMethods = false)
class McpEndpoint {

	/** The path of the default server. */
	static final String DEFAULT_PATH = "/mcp";

	@Bean
	@Order(Ordered.LOWEST_PRECEDENCE)
	RouterFunction<ServerResponse> mcpRoutes(McpRelay relay) {
		RequestPredicate anyServerPath = RequestPredicates.path("/mcp/{server}")
			.or(RequestPredicates.path("/{server}/mcp"))
			.or(RequestPredicates.path(DEFAULT_PATH));
		return RouterFunctions.route(anyServerPath, request -> written(relay.handle(server(request), request.exchange())));
	}

	/** The server the path names; {@code null} for the default server of {@code /mcp}. */
	private static String server(ServerRequest request) {
		return request.pathVariables().get("server");
	}

	/** The response is complete once the relay has written it: there is nothing left for WebFlux to render. */
	private static Mono<ServerResponse> written(Mono<Void> relayed) {
		return relayed.then(Mono.empty());
	}

}
