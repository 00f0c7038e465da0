package dev.mcprelay.web;

import org.springframework.http.HttpMethod;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.proxy.McpRelay;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP endpoint, {@code /mcp/{server}}: POST sends a message, GET opens the server-to-client
 * stream, DELETE ends a session. Each is relayed to the configured upstream {@code server}; the response is
 * written directly to the exchange so that streams flow event by event.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http">MCP
 * Streamable HTTP</a>
 */
@RestController
class McpEndpoint {

	private final McpRelay relay;

	McpEndpoint(McpRelay relay) {
		this.relay = relay;
	}

	@PostMapping("/mcp/{server}")
	Mono<Void> post(@PathVariable String server, ServerWebExchange exchange) {
		return relay.post(server, exchange);
	}

	@GetMapping("/mcp/{server}")
	Mono<Void> get(@PathVariable String server, ServerWebExchange exchange) {
		return relay.relayWithoutBody(HttpMethod.GET, server, exchange);
	}

	@DeleteMapping("/mcp/{server}")
	Mono<Void> delete(@PathVariable String server, ServerWebExchange exchange) {
		return relay.relayWithoutBody(HttpMethod.DELETE, server, exchange);
	}

}
