package dev.mcprelay.proxy;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.transport.UpstreamRequest;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Sends the relay's own answers to server-to-client requests to the upstream: when an interceptor rejects a
 * sampling, elicitation or roots request, the server gets the error response under its own request id, POSTed in the
 * same session as the client would (the client's headers, configured headers and credentials, without those that
 * describe the client's own request: {@code Last-Event-ID}, {@code Mcp-Method}, {@code Mcp-Name},
 * {@code Mcp-Param-*}). One POST per answer, in order. A failure is logged and never ends the client's stream: the
 * server then times its request out, as it would for a client that never answers.
 */
@Component
class ServerRequestAnswers {

	private static final Logger log = LoggerFactory.getLogger(ServerRequestAnswers.class);

	private final UpstreamTransports transports;

	ServerRequestAnswers(UpstreamTransports transports) {
		this.transports = transports;
	}

	/** POSTs each answer upstream; completes once all were answered (or failed), never with an error. */
	Mono<Void> send(RelayCall call, List<ObjectNode> answers) {
		if (answers.isEmpty()) {
			return Mono.empty();
		}
		Upstream upstream = call.upstream();
		return Flux.fromIterable(answers).concatMap(answer -> Mono.defer(() -> {
			HttpHeaders headers = HeaderRules.relayRequestHeaders(call.exchange().requestHeaders(),
					call.context().caller(), upstream, null);
			UpstreamRequest request = new UpstreamRequest(upstream.id(), HttpMethod.POST, upstream.uri(), headers,
					JsonRpcErrors.toBytes(answer), call.context().caller().id(), null);
			return transports.of(upstream).send(request, response -> {
					if (!response.statusCode().is2xxSuccessful()) {
						log.warn("'{}' did not accept the relay's answer to its {} request (HTTP {})", upstream.id(),
								answer.get("id"), response.statusCode().value());
					}
					return response.releaseBody();
				})
				.timeout(upstream.nonStreamingTimeout());
		}).onErrorResume(error -> {
			log.warn("The relay's answer to a request of '{}' could not be sent ({})", upstream.id(),
					UpstreamFailures.describe(error));
			return Mono.empty();
		})).then();
	}

}
