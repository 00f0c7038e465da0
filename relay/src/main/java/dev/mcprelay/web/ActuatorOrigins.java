package dev.mcprelay.web;

import java.util.List;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.proxy.OriginPolicy;
import dev.mcprelay.proxy.RelayFailure;
import reactor.core.publisher.Mono;

/**
 * The actuator paths ({@code /actuator/**}: {@code POST /actuator/reload} among them) refuse a browser page as the MCP
 * paths do ({@link OriginPolicy}): a request whose {@code Origin} is not allowed, or, while the relay listens on
 * loopback only, whose {@code Host} is not a loopback name, is answered 403 with a JSON-RPC error before anything else
 * (in mode {@code none} nothing else stands between a page on {@code https://evil.example} and a reload). Requests
 * without {@code Origin} (probes, scrapers, curl) pass as before. Runs before Spring Security; never blocks.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class ActuatorOrigins implements WebFilter {

	private static final String ACTUATOR = "/actuator";

	private final OriginPolicy originPolicy;

	ActuatorOrigins(OriginPolicy originPolicy) {
		this.originPolicy = originPolicy;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		String path = exchange.getRequest().getPath().pathWithinApplication().value();
		if (!(path.equals(ACTUATOR) || path.startsWith(ACTUATOR + "/"))) {
			return chain.filter(exchange);
		}
		try {
			originPolicy.check(exchange.getRequest().getHeaders());
		}
		catch (RelayFailure refused) {
			var response = exchange.getResponse();
			response.setStatusCode(refused.status());
			response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
			byte[] body = JsonRpcErrors.body(List.of(), false, refused.code(), refused.getMessage(), refused.data());
			return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
		}
		return chain.filter(exchange);
	}

}
