package dev.mcprelay.bridge;

import java.util.function.Function;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.ServerRequestGate;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A 2025 server's request on a held call's stream (direction 2, {@link PerRequestBridge}), put to the relay's
 * server-to-client stages ({@link ServerRequestGate}: policies and interceptors, as for the same request relayed to a
 * 2025 client) before the bridge turns it into the 2026 client's {@code input_required} ({@link HeldCalls#ask}). A
 * request the stages carry is asked as they left it; one they refuse or answer is answered to the server in the
 * call's session, the client never asked (it may be shown the rejection notice), and the call's stream goes on with
 * the server's next message. Runs when the held call's stream reaches the request; a failure to deliver the answer is
 * dropped (the server times its request out, as for a client that never answers), a failure of the stages fails the
 * call's stream.
 */
final class GatedServerRequests {

	private final UpstreamTransport server;

	GatedServerRequests(UpstreamTransport server) {
		this.server = server;
	}

	/**
	 * The events for the client of {@code serverRequest}, decided by {@code gate}: {@code ask}'s (the request as
	 * carried), or the notices of one answered to the server in {@code session}.
	 */
	Flux<byte[]> decide(ServerRequestGate gate, ObjectNode serverRequest, UpstreamRequest relayed,
			UpstreamSession session, Function<ObjectNode, Flux<byte[]>> ask) {
		return gate.decide(serverRequest).flatMapMany(decision -> {
			if (decision.carried() != null) {
				return ask.apply(decision.carried());
			}
			Flux<byte[]> notices = Flux.fromIterable(decision.notices())
				.map(notice -> SseEventWriter.message(notice.toString()));
			if (decision.answer() == null) {
				return notices;
			}
			return server.send(SessionEraRequests.inSession(relayed, decision.answer().deepCopy(), session, null),
					UpstreamResponse::releaseBody)
				.onErrorResume(failed -> Mono.empty())
				.thenMany(notices);
		});
	}

}
