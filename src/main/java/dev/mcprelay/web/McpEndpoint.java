package dev.mcprelay.web;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;

import dev.mcprelay.proxy.McpRelay;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP endpoint, {@code /mcp/{server}}: POST sends a message, GET opens the server-to-client
 * stream, DELETE ends a session; any other method is answered 405. Each is relayed to the configured upstream {@code server}; the relay writes the
 * response to the exchange itself, so that streams flow event by event, and the route returns no
 * {@link ServerResponse} of its own. A functional route: it is matched before any annotated controller and costs no
 * argument resolution per request.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http">MCP
 * Streamable HTTP</a>
 */
@Configuration(proxyBeanMethods = false)
class McpEndpoint {

	private static final String PATH = "/mcp/{server}";

	@Bean
	RouterFunction<ServerResponse> mcpRoutes(McpRelay relay) {
		return RouterFunctions.route()
			.POST(PATH, request -> written(relay.post(server(request), request.exchange())))
			.GET(PATH, request -> written(relay.relayWithoutBody(HttpMethod.GET, server(request), request.exchange())))
			.DELETE(PATH,
					request -> written(relay.relayWithoutBody(HttpMethod.DELETE, server(request), request.exchange())))
			.route(RequestPredicates.path(PATH), request -> written(relay.refuseMethod(server(request), request.exchange())))
			.build();
	}

	private static String server(ServerRequest request) {
		return request.pathVariable("server");
	}

	/** The response is complete once the relay has written it: there is nothing left for WebFlux to render. */
	private static Mono<ServerResponse> written(Mono<Void> relayed) {
		return relayed.then(Mono.empty());
	}

}
