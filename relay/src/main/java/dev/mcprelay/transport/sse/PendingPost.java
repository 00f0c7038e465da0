package dev.mcprelay.transport.sse;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * One client POST of a bridged session waiting for what the server sends back on its stream: the responses to its
 * requests (by id) and the progress notifications for them (by progress token). Complete once every request is
 * answered. Held messages are bounded ({@link #CAPACITY}); a progress notification past that is dropped, so a client
 * that stops reading cannot make the relay hold the server's stream in memory.
 */
final class PendingPost {

	/** Messages held for a client that reads its answer slower than the server sends it. */
	static final int CAPACITY = 1024;

	private final List<String> ids;

	private final List<String> progressTokens;

	private final Set<String> unanswered;

	private final Sinks.Many<Routed> messages = Sinks.many().unicast().onBackpressureBuffer(Queues.<Routed>get(CAPACITY).get());

	/**
	 * @param ids the keys of its requests' ids ({@link BridgedSession#idKey})
	 * @param progressTokens the keys of the progress tokens its requests carry
	 */
	PendingPost(List<String> ids, List<String> progressTokens) {
		this.ids = List.copyOf(ids);
		this.progressTokens = List.copyOf(progressTokens);
		this.unanswered = new HashSet<>(ids);
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

	/** What the server sent for this POST, in order; completes after the last response. Subscribe once. */
	Flux<Routed> messages() {
		return messages.asFlux();
	}

	/** A progress notification for one of its requests. */
	synchronized void progress(byte[] notification) {
		messages.tryEmitNext(new Routed(notification, false));
	}

	/** The response to the request whose id has key {@code id}. */
	synchronized void answer(String id, byte[] response) {
		if (!unanswered.remove(id)) {
			return;
		}
		messages.tryEmitNext(new Routed(response, true));
		if (unanswered.isEmpty()) {
			messages.tryEmitComplete();
		}
	}

	/** The session ended before every request was answered. */
	synchronized void fail(Throwable error) {
		messages.tryEmitError(error);
	}

	/**
	 * One message for the POST.
	 *
	 * @param json the JSON-RPC message as the server sent it
	 * @param response whether it answers one of the POST's requests
	 */
	record Routed(byte[] json, boolean response) {
	}

}
