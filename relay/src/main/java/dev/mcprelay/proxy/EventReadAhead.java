package dev.mcprelay.proxy;

import java.util.List;
import java.util.function.Function;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.sse.SseEventSplitter;
import dev.mcprelay.sse.SseEventTooLargeException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The events of an upstream event stream, read ahead of the client while earlier ones are being relayed (the two
 * connections live on different event loops), bounded both in count and in bytes: at most {@value #MAX_GROUPS} groups
 * of events (those one upstream chunk completed) and {@code maxBytes} of their bytes ({@code sessions.max-held-bytes})
 * are held between the upstream's socket and the client's relay stage, besides the event being completed (up to
 * {@code max-buffered-body}) and one chunk waiting for room. A group larger than the bound is read alone. A count alone
 * bounded nothing: a chunk completes one event of up to {@code max-buffered-body} (a bridged session hands on each
 * message whole), and 32 such events were read ahead of a client that read nothing.
 *
 * <p>Upstream chunks are asked for one at a time, each once what is held fits the bound, so a client that stops
 * reading stops the upstream read, and the relay's demand tells {@link StreamWatch} whose silence it is. Each chunk is
 * released once split; an event larger than {@code max-buffered-body} fails the stream with
 * {@link SseEventTooLargeException}.
 */
final class EventReadAhead {

	/** Groups of events read ahead at most, whatever their size. */
	static final int MAX_GROUPS = 32;

	private EventReadAhead() {
	}

	/**
	 * What {@code relayEvents} makes of each group of events {@code body}'s chunks complete, in order, read ahead by at
	 * most {@code maxBytes} of events. Each subscription has a bound of its own.
	 */
	static Flux<byte[]> relay(Flux<DataBuffer> body, SseEventSplitter splitter, long maxBytes,
			Function<List<SseEvent>, Publisher<byte[]>> relayEvents) {
		return Flux.defer(() -> {
			ByteBudget readAhead = new ByteBudget(maxBytes);
			return body.concatMap(chunk -> Mono.just(chunk).delayUntil(waiting -> readAhead.room(0)), 0)
				.<Group>handle((chunk, sink) -> {
					// handle, not map: a chunk is released here exactly once, also when splitting fails
					try {
						List<SseEvent> completed = splitter.split(chunk);
						if (!completed.isEmpty()) {
							Group group = new Group(completed);
							readAhead.take(group.bytes());
							sink.next(group);
						}
					}
					catch (SseEventTooLargeException ex) {
						sink.error(ex);
					}
					finally {
						DataBufferUtils.release(chunk);
					}
				})
				.concatMap(group -> Flux.from(relayEvents.apply(group.events()))
					.doFinally(signal -> readAhead.release(group.bytes())), MAX_GROUPS);
		});
	}

	/** The events one chunk completed, and their bytes. */
	private record Group(List<SseEvent> events, long bytes) {

		Group(List<SseEvent> events) {
			this(events, events.stream().mapToLong(event -> event.raw().length).sum());
		}

	}

}
