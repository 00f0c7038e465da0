package dev.mcprelay.bridge;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.session.SessionIds;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;

/**
 * A 2026-07-28 client's cancellation, told to the 2025 server of direction 2 ({@link PerRequestBridge}) as a 2025
 * client tells it. A 2026 client cancels a request by closing its stream; a 2025 server is told with
 * {@code notifications/cancelled} (closing the connection is no cancellation there, and the TypeScript SDK v1 goes on
 * with the request). Each request the bridge sends under an id it minted is a {@link Sent}: when the client leaves it
 * before its answer (its stream closed, its held call abandoned, expired or refused), the server gets
 * {@code notifications/cancelled} naming that id, in the session the request went in; a request answered (its
 * result or error under the minted id, or an error status) is never cancelled.
 *
 * <p>The notification is sent after the client has gone, so nothing waits for it: each is bounded in time (the
 * server's {@code timeouts.non-streaming}), and at most {@value #MAX_IN_FLIGHT} are in flight per server on this
 * replica ({@link ServerFlights#cancelling}); one more is not sent (logged at debug), the server then ends the request
 * as it would have without it. A failure is ignored.
 */
final class BridgedCancellations {

	/** The most {@code notifications/cancelled} in flight for one server on this replica. */
	static final int MAX_IN_FLIGHT = 64;

	private static final String ID_PREFIX = "mcp-relay-bridged-";

	private static final Logger logger = LoggerFactory.getLogger(BridgedCancellations.class);

	private final UpstreamTransport server;

	private final String serverId;

	private final Duration timeout;

	private final AtomicInteger inFlight;

	/**
	 * @param timeout how long one notification waits for the server: its {@code timeouts.non-streaming}
	 * @param inFlight the notifications in flight for the server on this replica ({@link ServerFlights#cancelling})
	 */
	BridgedCancellations(UpstreamTransport server, String serverId, Duration timeout, AtomicInteger inFlight) {
		this.server = server;
		this.serverId = serverId;
		this.timeout = timeout;
		this.inFlight = inFlight;
	}

	/**
	 * A request of the client's about to be sent as {@code relayed} in {@code session} under a new id of the relay's
	 * ({@code mcp-relay-bridged-} and 256 random bits: clients that share the session may use the same ids).
	 */
	Sent mint(UpstreamRequest relayed, UpstreamSession session) {
		return new Sent(ID_PREFIX + SessionIds.mint(), relayed, session);
	}

	/** One request sent under an id the relay minted: told cancelled when abandoned before its answer. */
	final class Sent {

		/** The id the server knows the request by. */
		final String id;

		private final UpstreamRequest relayed;

		private final UpstreamSession session;

		/** Whether the request was answered, or told cancelled: nothing more is sent for it. */
		private final AtomicBoolean settled = new AtomicBoolean();

		private Sent(String id, UpstreamRequest relayed, UpstreamSession session) {
			this.id = id;
			// its address, headers and caller, for the notification: not its body, which a held call would keep for as
			// long as it waits for its client's retry (review 46m, M2)
			this.relayed = new UpstreamRequest(relayed.serverId(), relayed.method(), relayed.uri(), relayed.headers(),
					null, relayed.callerId(), null);
			this.session = session;
		}

		/** Whether {@code message} is the server's answer to this request (then it is settled: never cancelled). */
		boolean answeredBy(ObjectNode message) {
			if (message.has("method") || !id.equals(message.path("id").asText(null))) {
				return false;
			}
			settled.set(true);
			return true;
		}

		/** The server answered the request otherwise (an error status): it is over there, and never cancelled. */
		void answered() {
			settled.set(true);
		}

		/**
		 * The client left the request before its answer: the server is told, once, unless it answered; returns at once.
		 */
		void abandon() {
			if (!settled.compareAndSet(false, true)) {
				return;
			}
			if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
				inFlight.decrementAndGet();
				logger.debug("MCP server '{}' is not told of a cancelled request: {} notifications are in flight",
						serverId, MAX_IN_FLIGHT);
				return;
			}
			ObjectNode cancelled = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0")
				.put("method", "notifications/cancelled");
			cancelled.putObject("params").put("requestId", id).put("reason", "The client closed its request");
			server.send(SessionEraRequests.inSession(relayed, cancelled, session, null), UpstreamResponse::releaseBody)
				.timeout(timeout)
				.doFinally(signal -> inFlight.decrementAndGet())
				.subscribe(null, failed -> logger.debug("MCP server '{}' was not told of a cancelled request: {}",
						serverId, failed.toString()));
		}

	}

}
