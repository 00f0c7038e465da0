package dev.mcprelay.proxy;

import org.springframework.stereotype.Component;

import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.security.SessionBinding;
import dev.mcprelay.transport.UpstreamResponse;

/**
 * Writes the head of a client's response from the upstream's, for every kind of relayed response (JSON, SSE, untouched,
 * accepted): the upstream's status, the headers that may cross, put on it as they are read ({@link HeaderRules#putRelayedResponseHeaders}), and the
 * session id bound to the caller ({@link SessionBinding}) in place of the upstream's. Nothing is written yet: the
 * response commits with its first body write.
 */
@Component
class ResponseHead {

	private final SessionBinding sessionBinding;

	ResponseHead(SessionBinding sessionBinding) {
		this.sessionBinding = sessionBinding;
	}

	/**
	 * @param keepContentLength true only when the body is relayed exactly as received
	 */
	void write(RelayCall call, UpstreamResponse upstreamResponse, boolean keepContentLength) {
		RelayResponse response = call.exchange().response();
		response.status(upstreamResponse.statusCode());
		io.netty.handler.codec.http.HttpHeaders upstream = upstreamResponse.wireHeaders();
		io.netty.handler.codec.http.HttpHeaders headers = response.headers();
		HeaderRules.putRelayedResponseHeaders(upstream, keepContentLength, headers);
		if (sessionBinding.enabled()) {
			// the upstream's session id always crosses, its first line: what the client now holds
			String sessionId = upstream.get(HeaderRules.MCP_SESSION_ID);
			if (sessionId != null) {
				headers.set(HeaderRules.MCP_SESSION_ID,
						sessionBinding.bind(call.upstream().id(), call.context().caller(), sessionId));
			}
		}
	}

}
