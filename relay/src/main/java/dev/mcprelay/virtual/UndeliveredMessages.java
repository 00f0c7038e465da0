package dev.mcprelay.virtual;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a member sent on its stream that the relay could not deliver to the client: counted
 * ({@value RelayMeters#VIRTUAL_UNDELIVERED}, by virtual server, member, kind and reason) and logged, a lost request at
 * {@code WARN} (a member waits for its answer), notifications at {@code DEBUG}. Reasons:
 * <ul>
 * <li>{@code no_client_stream}: the client opened no GET stream on this replica within {@link ClientStream#WAIT} of
 * its session's start (it opens none, or it went to another replica);</li>
 * <li>{@code client_gone}: the client's GET stream ended with the message still held, no other came within
 * {@link ClientStream#WAIT}, and the member gave the message no event id, so a resumed stream cannot ask for it
 * again;</li>
 * <li>{@code session_ended}: the session ended (DELETE, expiry) with the message still held;</li>
 * <li>{@code stream_not_open}: a call went to the member before its stream was open (it had been taken for a member
 * that answers its GET only with an event) and the member then answered the GET promptly: it had no stream for the
 * requests it sent the client during the call, and dropped them. The relay never sees those, so what is counted, as
 * {@code kind} {@code call}, is each call that went ahead of the stream.</li>
 * </ul>
 */
@Component
class UndeliveredMessages {

	private static final Logger log = LoggerFactory.getLogger(UndeliveredMessages.class);

	static final String NO_CLIENT_STREAM = "no_client_stream";

	static final String CLIENT_GONE = "client_gone";

	static final String SESSION_ENDED = "session_ended";

	static final String STREAM_NOT_OPEN = "stream_not_open";

	private final MeterRegistry registry;

	UndeliveredMessages(MeterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Counts what a session left undelivered ({@code left}, by member): all of it when no client came or the session
	 * ended; when the client's stream ended, only what its next stream cannot ask the member for again (events without
	 * an id). The relay's own messages are not counted.
	 */
	void count(String virtualId, List<HeldEvents.Event> left, String reason) {
		boolean all = !CLIENT_GONE.equals(reason);
		Map<String, int[]> byMember = new LinkedHashMap<>();
		for (HeldEvents.Event event : left) {
			if (event.message() && (all || !event.resumable())) {
				byMember.computeIfAbsent(event.member(), member -> new int[2])[event.serverRequest() ? 0 : 1]++;
			}
		}
		byMember.forEach((member, counts) -> count(virtualId, member, reason, counts[0], counts[1]));
	}

	/** {@code requests} requests and {@code notifications} notifications of {@code member} were not delivered. */
	void count(String virtualId, String member, String reason, int requests, int notifications) {
		if (requests > 0) {
			counter(virtualId, member, "request", reason).increment(requests);
			log.warn("Virtual server '{}': {} request(s) of member '{}' to the client could not be delivered ({}): {}",
					virtualId, requests, member, reason, hint(reason));
		}
		if (notifications > 0) {
			counter(virtualId, member, "notification", reason).increment(notifications);
			log.debug("Virtual server '{}': {} notification(s) of member '{}' could not be delivered ({})", virtualId,
					notifications, member, reason);
		}
	}

	/**
	 * {@code calls} calls went to {@code member} before its stream was open, which it opened promptly after: any
	 * request it sent the client during them was dropped at the member ({@link #STREAM_NOT_OPEN}).
	 */
	void callsAhead(String virtualId, String member, int calls) {
		counter(virtualId, member, "call", STREAM_NOT_OPEN).increment(calls);
		log.warn("Virtual server '{}': {} call(s) went to member '{}' before its stream was open (it had been slow to "
				+ "answer its GET); a request it sent the client during them had no stream and was dropped at the member",
				virtualId, calls, member);
	}

	private Counter counter(String virtualId, String member, String kind, String reason) {
		return Counter.builder(RelayMeters.VIRTUAL_UNDELIVERED)
			.description("Messages of a virtual server's member on its stream that could not be delivered to the client")
			.tag(RelayMeters.VIRTUAL_SERVER, virtualId)
			.tag(RelayMeters.SERVER, member)
			.tag(RelayMeters.KIND, kind)
			.tag(RelayMeters.REASON, reason)
			.register(registry);
	}

	private static String hint(String reason) {
		return switch (reason) {
			case NO_CLIENT_STREAM -> "the client opened no GET stream on this replica in time; with several replicas, "
					+ "route a session's requests to one replica (affinity on Mcp-Session-Id)";
			case CLIENT_GONE -> "the client's GET stream ended first and no other came in time, and the member's events "
					+ "carry no id to resume by";
			default -> "the session ended first";
		};
	}

}
