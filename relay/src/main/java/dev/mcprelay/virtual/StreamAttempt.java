package dev.mcprelay.virtual;

import java.util.OptionalInt;

import dev.mcprelay.proxy.SessionOrder;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One attempt of a {@link MemberStream} to open its member's stream, and what the relay learns of the member from how
 * it answers that GET: whether it had a stream for the calls that went to it while the GET was unanswered.
 *
 * <p>When it runs: the stream makes one each time it sends its GET; a call that stops waiting for the stream and goes
 * to the member counts itself against it ({@link #callWentAhead}); the stream's reading marks each message that comes
 * on it ({@link #messageSeen}); and {@link SessionOrder#GET_HEADERS_GRACE} after the member answered with its event
 * stream, the stream judges it ({@link #judgeHeadersAlone}). No event came with the headers: the member sends a
 * stream's headers as it opens it (it does not hold them for its first event, as the MCP Java SDK's servlet transport
 * does), so it had no stream before it answered, and the calls that went ahead of it reached a member with no stream
 * for its requests ({@link MergedStreams#answeredAlone}). An event that carries no message (a priming event, which a
 * server sends as it opens a stream, or a comment) does not change that. A stream whose first message came with its
 * headers tells nothing: the member may have held its headers for that message.
 *
 * <p>What it may change: only its own count and judgement, and, once the member is found to have had no stream
 * ({@link #foundWithoutStream}), it completes what {@link #callWentAhead} gave the calls. It is judged at most once.
 * It is safe from any thread; its stream calls it while holding its own monitor where the stream's state must agree
 * (a call is counted only while the stream is opening, a stream that ended is not judged).
 *
 * <p>On failure: nothing it does can fail. An attempt whose GET failed before it opened is judged as one answered
 * with headers alone (the member had no stream for the calls that went ahead: {@link MemberStream}'s failure). One
 * whose member answered otherwise (405, a lost session), or whose stream brought a message before the judgement, is
 * never judged alone: what it gave the calls never completes.
 */
final class StreamAttempt {

	/** Calls that went to the member while this attempt was opening; guarded by {@code this}. */
	private int callsAhead;

	/** Whether a message came on this attempt's stream before it was judged, or it was judged; guarded by {@code this}. */
	private boolean eventSeen;

	/** Completes when the member is found to have had no stream for the calls that went ahead. */
	private final Sinks.Empty<Void> withoutStream = Sinks.empty();

	/**
	 * A call went to the member while this attempt was opening: counted.
	 *
	 * @return completes if the member is then found to have had no stream for it ({@link #foundWithoutStream}); never,
	 * else
	 */
	synchronized Mono<Void> callWentAhead() {
		callsAhead++;
		return withoutStream.asMono();
	}

	/** A message came on this attempt's stream: the member may have held its headers for it, so no judgement follows. */
	synchronized void messageSeen() {
		eventSeen = true;
	}

	/**
	 * Judges the attempt {@link SessionOrder#GET_HEADERS_GRACE} after the member answered its GET with its event stream.
	 *
	 * @return the number of calls that went ahead, if no message came with the headers (the member answered with its
	 * headers alone, and had no stream before); empty if one did or the attempt was judged already
	 */
	synchronized OptionalInt judgeHeadersAlone() {
		if (eventSeen) {
			return OptionalInt.empty();
		}
		eventSeen = true;
		return OptionalInt.of(callsAhead);
	}

	/** The member had no stream for the calls that went ahead: what {@link #callWentAhead} gave them completes. */
	void foundWithoutStream() {
		withoutStream.tryEmitEmpty();
	}

}
