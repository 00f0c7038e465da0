package dev.mcprelay.transport.sse;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.HeldMessages;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * One client POST of a bridged session waiting for what the server sends back on its stream: the responses to its
 * requests (by id) and the progress notifications for them (by progress token). Complete once every request is
 * answered. The stream's keepalive comments are the session's, not the request's: they never reach a POST (a request
 * whose answer is lost must time out, however lively its session).
 *
 * <p>What waits for the client to take it is bounded ({@link HeldMessages}: {@link #CAPACITY} messages and the
 * session's byte bound), so that a server that floods a POST, or a client that stops reading, cannot make the relay hold
 * the server's stream in memory. A message past the bound fails the POST: the client gets, after what was held, a
 * JSON-RPC error for each request still unanswered, never an answer that silently went missing.
 */
final class PendingPost {

	/** Messages held for a client that reads its answer slower than the server sends it. */
	static final int CAPACITY = 1024;

	private final List<String> ids;

	private final List<String> progressTokens;

	private final Set<String> unanswered;

	private final HeldMessages held;

	private final Supplier<RuntimeException> overflowed;

	/** Bounded by {@link #held}, not by the queue. */
	private final Sinks.Many<Routed> messages = Sinks.many().unicast().onBackpressureBuffer(Queues.<Routed>unbounded().get());

	/** No message is taken any more: the POST failed. Guarded by {@code this}. */
	private boolean failed;

	/** The key of its {@code initialize} request's id; {@code null} when it carries none. */
	private final String initializeId;

	/** Its {@code initialize} was answered with a result, not an error. Guarded by {@code this}. */
	private boolean initialized;

	/**
	 * @param ids the keys of its requests' ids ({@link WaitingPosts#key})
	 * @param progressTokens the keys of the progress tokens its requests carry
	 * @param initializeId the key of its {@code initialize} request's id, {@code null} when it carries none
	 * @param held what it may hold for its client
	 * @param overflowed the failure to end it with when a message does not fit (reports the overflow)
	 */
	PendingPost(List<String> ids, List<String> progressTokens, String initializeId, HeldMessages held,
			Supplier<RuntimeException> overflowed) {
		this.ids = List.copyOf(ids);
		this.progressTokens = List.copyOf(progressTokens);
		this.initializeId = initializeId;
		this.unanswered = new HashSet<>(ids);
		this.held = held;
		this.overflowed = overflowed;
	}

	List<String> ids() {
		return ids;
	}

	List<String> progressTokens() {
		return progressTokens;
	}

	/** How many requests the POST carried. */
	int requests() {
		return ids.size();
	}

	/**
	 * What the server sent for this POST, in order; completes after the last response, fails when the session ends or
	 * the POST overflowed. Subscribe once.
	 */
	Flux<Routed> messages() {
		return messages.asFlux().doOnNext(routed -> held.release(routed.size()));
	}

	/** A progress notification for one of its requests. */
	synchronized void progress(byte[] notification) {
		offer(new Routed(notification, false, false));
	}

	/**
	 * The response to the request whose id has key {@code id}.
	 *
	 * @param error whether it is a JSON-RPC error rather than a result
	 */
	synchronized void answer(String id, byte[] response, boolean error) {
		if (failed || !unanswered.remove(id)) {
			return;
		}
		// before it is offered: a subscriber may take it, and end the exchange, within the offer
		if (id.equals(initializeId)) {
			initialized = !error;
		}
		if (!offer(new Routed(response, true, error))) {
			return;
		}
		if (unanswered.isEmpty()) {
			messages.tryEmitComplete();
		}
	}

	/** Whether its {@code initialize} was answered with a result (not an error) and handed on. */
	synchronized boolean initialized() {
		return initialized;
	}

	/** The session ended before every request was answered. */
	synchronized void fail(Throwable error) {
		failed = true;
		messages.tryEmitError(error);
	}

	/** Holds {@code routed} for the client, or fails the POST when it does not fit; whether it was held. */
	private boolean offer(Routed routed) {
		if (failed) {
			return false;
		}
		if (!held.hold(routed.size())) {
			fail(overflowed.get());
			return false;
		}
		messages.tryEmitNext(routed);
		return true;
	}

	/**
	 * One message for the POST.
	 *
	 * @param json the JSON-RPC message as the server sent it
	 * @param response whether it answers one of the POST's requests
	 * @param error whether that answer is a JSON-RPC error
	 */
	record Routed(byte[] json, boolean response, boolean error) {

		/** How it goes on the client's event stream: a {@code message} event. */
		byte[] event() {
			return SseEventWriter.message(new String(json, StandardCharsets.UTF_8));
		}

		int size() {
			return json.length;
		}

	}

}
