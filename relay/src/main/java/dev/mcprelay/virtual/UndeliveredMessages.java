package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;

import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a member sent on its stream that the relay could not deliver to the client: counted
 * ({@value RelayMeters#VIRTUAL_UNDELIVERED}, by virtual server, member, kind and reason) and logged, a lost request at
 * {@code WARN} (a member waits for its answer), notifications at {@code DEBUG}. A lost request is also answered to its
 * member, with a JSON-RPC error under the member's own id ({@link #answerLost}), so that what the member was doing
 * for a call of the client's (a tool waiting for sampling) ends instead of waiting for ever, and the client's call
 * with it; not when the session ended (its member sessions end with it). Reasons:
 * <ul>
 * <li>{@code no_client_stream}: the client opened no GET stream on this replica within {@link ClientStream#WAIT} of
 * its session's start (it opens none, or it went to another replica);</li>
 * <li>{@code client_gone}: the client's GET stream ended with the message still held, no other came within
 * {@link ClientStream#WAIT}, and the member gave the message no event id, so a resumed stream cannot ask for it
 * again;</li>
 * <li>{@code session_ended}: the session ended (DELETE, expiry) with the message still held;</li>
 * <li>{@code stream_not_open}: a call went to the member before its stream was open (the wait for it ran out) and the
 * member then answered the GET with its headers alone: it had no stream for the requests it sent the client during
 * the call, and dropped them. The relay never sees those, so what is counted, as {@code kind} {@code call}, is each
 * call that went ahead of the stream (one still waiting for the member is answered with {@link MemberHadNoStream}).</li>
 * <li>{@code get_may_not_read}: the client's GET may not carry the member's messages (its own credential may not use
 * the member now: another credential of the same caller, a wider token of the same subject, opened the member's stream,
 * or a reload took the member from the GET's): a message the member sent while that GET was attached
 * ({@link GetReadGate}: the member's stream is refused there), or one held for the client that a GET which may not
 * read it found ({@link MergedSession#keepOnly}, at its start). A lost request is answered to the member at once, so
 * that the call that made the member ask (of a credential that may use it) ends with the member's answer instead of
 * waiting for the member to give up (review 44p P-M2).</li>
 * <li>{@code access_withdrawn}: a reload withdrew the member from the GET's caller just as its stream opened on that
 * GET ({@link GetReadGate}: the judgement made before the open did not see the reload); a lost request is not answered
 * to the member: nothing more goes to a member on behalf of a caller that lost it.</li>
 * </ul>
 */
@Component
class UndeliveredMessages {

	private static final Logger log = LoggerFactory.getLogger(UndeliveredMessages.class);

	static final String NO_CLIENT_STREAM = "no_client_stream";

	static final String CLIENT_GONE = "client_gone";

	static final String SESSION_ENDED = "session_ended";

	static final String STREAM_NOT_OPEN = "stream_not_open";

	/**
	 * The client's GET may not read the member ({@link GetReadGate}, {@link MergedSession#keepOnly}): what the member
	 * sent is dropped, a request answered to the member at once.
	 */
	static final String GET_MAY_NOT_READ = "get_may_not_read";

	/**
	 * A reload withdrew the member from the caller of the session's GET as its stream opened there ({@link GetReadGate}):
	 * what it held of the member's is dropped, and no message goes to that member on the caller's behalf.
	 */
	static final String ACCESS_WITHDRAWN = "access_withdrawn";

	/** The client's GET landed on another replica, which took the session's member streams over ({@link StreamHandover}). */
	static final String STREAM_MOVED = "stream_moved";

	private final MeterRegistry registry;

	private final MemberCalls calls;

	private final MemberIds ids;

	UndeliveredMessages(MeterRegistry registry, MemberCalls calls, MemberIds ids) {
		this.registry = registry;
		this.calls = calls;
		this.ids = ids;
	}

	/**
	 * Counts what {@code session} left undelivered ({@code left}, by member): all of it when no client came or the
	 * session ended; when the client's stream ended, only what its next stream cannot ask the member for again (events
	 * without an id). The relay's own messages are not counted. Each lost request is answered to its member
	 * ({@link #answerLost}), in its session of {@code memberSessions}, unless the session ended or a reload withdrew the
	 * member from the caller ({@link #ACCESS_WITHDRAWN}).
	 */
	void count(MergedSession session, List<HeldEvents.Event> left, String reason,
			Map<String, MemberSession> memberSessions) {
		boolean all = !CLIENT_GONE.equals(reason);
		Map<String, int[]> byMember = new LinkedHashMap<>();
		for (HeldEvents.Event event : left) {
			if (event.message() && (all || !event.resumable())) {
				byMember.computeIfAbsent(event.member(), member -> new int[2])[event.serverRequest() ? 0 : 1]++;
				if (event.serverRequest() && !SESSION_ENDED.equals(reason) && !ACCESS_WITHDRAWN.equals(reason)
						&& memberSessions.containsKey(event.member())) {
					answerLost(session, memberSessions.get(event.member()), event, reason);
				}
			}
		}
		byMember.forEach((member, counts) -> count(session.virtualId(), member, reason, counts[0], counts[1]));
	}

	/**
	 * Answers the member's request {@code event} (held for the client and lost) with a JSON-RPC error under the
	 * member's own id, in {@code memberSession}: the member stops waiting for the client's answer. What the member
	 * answers is read and dropped; a member that cannot be reached is not asked again.
	 */
	private void answerLost(MergedSession session, MemberSession memberSession, HeldEvents.Event event,
			String reason) {
		ObjectNode request = MemberMessages.parse(event.source().data().getBytes(StandardCharsets.UTF_8));
		MemberIds.MemberRequestId origin = request == null ? null : ids.unwrap(session.sessionId(), request.get("id"));
		if (origin == null || !origin.member().equals(event.member())) {
			return;
		}
		ObjectNode error = JsonRpcErrors.error(origin.id(), JsonRpcErrorCodes.INTERNAL_ERROR,
				"The relay could not deliver this request to the client (" + reason + "): " + hint(reason),
				Map.of("reason", reason));
		calls.send(session.origin(), event.member(), HttpMethod.POST, memberSession, null, JsonRpcErrors.toBytes(error),
				() -> {
				})
			.flatMap(MemberAnswer::discard)
			.subscribe(null, failure -> log.debug("Virtual server '{}': member '{}' could not be told of its request "
					+ "lost: {}", session.virtualId(), event.member(), failure.toString()));
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
		log.warn("Virtual server '{}': {} call(s) went to member '{}' before its stream was open (it was slow to answer "
				+ "its GET); a request it sent the client during them had no stream and was dropped at the member, and a "
				+ "call still waiting for the member is answered with an error ({})", virtualId, calls, member,
				STREAM_NOT_OPEN);
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
			case NO_CLIENT_STREAM -> "the client opened no GET stream in time";
			case STREAM_MOVED -> "the client's GET stream went to another replica, which reads the members' streams from "
					+ "where the client's Last-Event-ID says it stopped; this replica held it and let go";
			case CLIENT_GONE -> "the client's GET stream ended first and no other came in time, and the member's events "
					+ "carry no id to resume by";
			case GET_MAY_NOT_READ -> "the client's GET stream is opened with a credential that may not use this member "
					+ "(another credential of the same caller may); open the GET with that credential to get what the "
					+ "member asks the client";
			case ACCESS_WITHDRAWN -> "a reload withdrew the member from the caller of the client's GET stream";
			default -> "the session ended first";
		};
	}

}
