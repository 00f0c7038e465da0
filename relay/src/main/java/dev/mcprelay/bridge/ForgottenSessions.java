package dev.mcprelay.bridge;

import java.time.Duration;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.session.SessionIds;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * Whether a 2025 server forgot an upstream session of direction 2's ({@link PerRequestBridge}), when it answered a
 * request in it with a 400 that answers no request (no JSON-RPC error under the request's id): such a 400 is as much a
 * refusal of the request's own content (the TypeScript SDK's "Parse error: Invalid JSON-RPC message", {@code id:
 * null}, for a message its schema refuses) as the refusal of a server that restarted and no longer knows the session
 * ("No valid session ID provided"). A {@code ping} in the same session tells which: the server answers it (2xx) in a
 * session it knows, so the 400 was the request's and is handed on, the session kept; any other answer, or none within
 * {@code timeout}, and the session is forgotten: the relay opens another and ends this one ({@link #end}).
 *
 * <p>Both run on the server's transport, never block, and never fail: a failure counts as "forgotten" for
 * {@link #forgot}, and is ignored by {@link #end}.
 */
final class ForgottenSessions {

	private final UpstreamTransport server;

	private final Duration timeout;

	/** @param timeout how long the check waits for the server's answer: its {@code timeouts.non-streaming} */
	ForgottenSessions(UpstreamTransport server, Duration timeout) {
		this.server = server;
		this.timeout = timeout;
	}

	/** Whether the server no longer knows {@code session}: it did not answer a {@code ping} in it with a 2xx. */
	Mono<Boolean> forgot(UpstreamRequest relayed, UpstreamSession session) {
		ObjectNode ping = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0")
			.put("id", "mcp-relay-ping-" + SessionIds.mint()).put("method", "ping");
		return server.send(SessionEraRequests.inSession(relayed, ping, session, null),
				response -> response.releaseBody().then(Mono.fromRunnable(() -> {
					if (!response.statusCode().is2xxSuccessful()) {
						throw new SessionForgotten();
					}
				})))
			.timeout(timeout)
			.thenReturn(false)
			.onErrorReturn(true);
	}

	/**
	 * The session opened ({@code reopen}) in place of {@code session}, whose server answered a request of the relay's
	 * own in it (a listen's GET) with {@code status}: a 404 or a 400 does when the server no longer knows the session
	 * ({@link #forgot}), which is then ended (a DELETE, once) before the new one opens; empty for any other status, or
	 * a 404 or 400 in a session the server knows (its answer was about the request: a server that routes only POST
	 * answers every GET 404, review 46f F2, where each listen opened a session and ended none).
	 */
	Mono<UpstreamSession> replaced(UpstreamRequest relayed, UpstreamSession session, int status,
			java.util.function.Supplier<Mono<UpstreamSession>> reopen) {
		if (status != 404 && status != 400) {
			return Mono.empty();
		}
		return forgot(relayed, session).flatMap(gone -> !gone ? Mono.<UpstreamSession>empty()
				: end(relayed, session).then(Mono.defer(reopen)));
	}

	/** Ends {@code session} at the server (DELETE), which the relay replaced with another; completes either way. */
	Mono<Void> end(UpstreamRequest relayed, UpstreamSession session) {
		if (session.sessionId() == null) {
			return Mono.empty();
		}
		return server.close(SessionEraRequests.end(relayed, session), UpstreamResponse::releaseBody)
			.timeout(timeout)
			.onErrorResume(failed -> Mono.empty());
	}

	/** The server answered the check with another status than 2xx. */
	private static final class SessionForgotten extends RuntimeException {

		SessionForgotten() {
			super(null, null, false, false);
		}

	}

}
