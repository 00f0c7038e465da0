package dev.mcprelay.proxy;

import java.util.List;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.api.CallContext;
import dev.mcprelay.intercept.PendingRequests;
import dev.mcprelay.intercept.ResponseInterception;
import dev.mcprelay.jsonrpc.JsonRpcScanner;
import dev.mcprelay.transport.ServerRequestGate;
import reactor.core.publisher.Mono;

/**
 * The {@link ServerRequestGate} of one call: a server's request that a transport composes into another form (the
 * version bridge's {@code input_required}) meets the same server-to-client stages, with the same call's context and
 * pending requests, as one on the call's event stream ({@link SseStreamRelay}): {@link ResponseInterception}, the one
 * place they run. What the stages carry is the client's (under the server's id: the transport answers the server under
 * it); what they answer or refuse is the server's, with the rejection notice the client may be shown when the server
 * is configured to notify ({@code rejected-server-requests}).
 */
@Component
class ServerRequestGates {

	private final ResponseInterception responseInterception;

	ServerRequestGates(ResponseInterception responseInterception) {
		this.responseInterception = responseInterception;
	}

	/** The gate of {@code call}'s exchange. */
	ServerRequestGate of(RelayCall call) {
		// what the stages need of the call, not the call: a gate lives as long as the call's exchange with the server,
		// a bridged call held for its client's retry among them, and the call holds its body and its plan (review
		// 46m, M2)
		CallContext context = call.context();
		PendingRequests pending = call.pending();
		Upstream upstream = call.upstream();
		return request -> Mono
			.fromCallable(() -> JsonRpcScanner.scan(JsonRpcErrors.toBytes(request)))
			.flatMap(payload -> responseInterception.apply(payload, context, pending, true,
					upstream.nonStreamingTimeout()))
			.map(messages -> {
				ObjectNode carried = messages.messages().stream().filter(JsonRpcMessage::isRequest)
					.map(JsonRpcMessage::node).findFirst().map(ObjectNode::deepCopy).orElse(null);
				if (carried != null) {
					carried.set("id", request.get("id"));
				}
				ObjectNode answer = messages.upstreamAnswers().isEmpty() ? null : messages.upstreamAnswers().get(0);
				List<ObjectNode> notices = upstream.notifiesRejectedServerRequests()
						? messages.rejectionNotices() : List.of();
				return new ServerRequestGate.Decision(answer == null ? carried : null, answer, notices);
			});
	}

}
