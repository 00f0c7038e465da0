package dev.mcprelay.transport;

import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;

import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The relay's server-to-client stages (remote-message, then the request's own stage: policies, interceptors), for a
 * request a server sends while a transport composes the client's answer in another form: the version bridge turns a
 * 2025 server's {@code elicitation/create}, {@code sampling/createMessage} or {@code roots/list} into a 2026-07-28
 * client's {@code input_required} result, which no stage would read. The transport asks the gate first, so that the
 * request is decided as the same request relayed to a 2025 client would be: carried to the client (as the stages
 * left it), or answered to the server (a refusal, or an interceptor's result), the client never seeing it.
 *
 * <p>The relay puts the gate of each exchange in the Reactor context of its subscription to the transport
 * ({@link #KEY}); a transport reads it while that subscription runs. Without one, every request is carried as it came.
 * {@link #decide} never blocks; it fails only when a stage failed in a way the stages do not answer themselves.
 */
@FunctionalInterface
public interface ServerRequestGate {

	/** The key of the exchange's gate in the Reactor context. */
	Object KEY = ServerRequestGate.class;

	/** The gate of an exchange no stage runs for: every request carried as it came. */
	ServerRequestGate NONE = request -> Mono.just(new Decision(request, null, List.of()));

	/** Decides about {@code request}, a request of the server's (its id the server's own). */
	Mono<Decision> decide(ObjectNode request);

	/** The gate in {@code context}, or {@link #NONE}. */
	static ServerRequestGate of(ContextView context) {
		return context.getOrDefault(KEY, NONE);
	}

	/**
	 * What became of a server's request.
	 *
	 * @param carried the request as the stages left it, to be carried to the client; {@code null} when it is not
	 * @param answer the response the server gets instead (under its request's id); {@code null} when carried
	 * @param notices what the client may be shown of a request it does not get ({@code notifications/message}, as the
	 * server's {@code rejected-server-requests} says); empty when nothing
	 */
	record Decision(ObjectNode carried, ObjectNode answer, List<ObjectNode> notices) {
	}

}
