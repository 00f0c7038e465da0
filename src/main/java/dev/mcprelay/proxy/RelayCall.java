package dev.mcprelay.proxy;

import org.springframework.http.HttpMethod;
import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.jsonrpc.JsonRpcPayload;

/**
 * One client request on its way through the relay.
 *
 * @param upstream where it goes
 * @param method POST, GET or DELETE
 * @param payload the parsed POST body, {@code null} for GET and DELETE
 * @param exchange the client's exchange
 */
public record RelayCall(Upstream upstream, HttpMethod method, JsonRpcPayload payload, ServerWebExchange exchange) {

	public boolean isPost() {
		return HttpMethod.POST.equals(method);
	}

}
