package dev.mcprelay.http;

import java.nio.ByteBuffer;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.HttpStatusCode;

import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Mono;

/**
 * The response to one client request on an MCP path, as the relay writes it: a status and headers, changed freely until
 * the response commits, then one body write. The relay's whole answer goes through this interface, whichever server
 * carries it (Reactor Netty's own response, a virtual server's member exchange in-process; WebFlux's response for the
 * answers to paths off the route).
 *
 * <p>Commit: the first write ({@link #write}, {@link #writeAndFlushEach}, {@link #complete}) sends the status and the
 * headers as they are at its subscription; changes after it are not seen by the client. Only one write may be made.
 *
 * <p>Buffers: each {@link DataBuffer} handed to a write belongs to the writer from then on, which releases it once sent
 * or, when the write fails or is cancelled (the client went away), when it is discarded; the caller releases nothing it
 * handed over. A write's {@code Mono} completes once the body is written, fails when the connection fails, and is
 * cancelled, with its source, when the client goes away.
 */
public interface RelayResponse {

	/** Sets the status; {@code 200} unless set. */
	void status(HttpStatusCode status);

	/**
	 * The response's headers, Netty's own type, changed in place: what is in them when the response commits is what the
	 * client gets. Names are case-insensitive.
	 */
	HttpHeaders headers();

	/** Where buffers for a write come from, so that a write costs no copy into the connection's own. */
	DataBufferFactory bufferFactory();

	/**
	 * A buffer of {@code length} bytes of {@code bytes} from {@code offset} for a write, which runs {@code onGone} once
	 * when it has left the relay: written to the client's connection, or dropped because the write failed or was
	 * cancelled. For a body that bounds what it has handed to the client and the client has not taken yet, and watches
	 * what the client takes ({@code dev.mcprelay.proxy.ClientWriteWindow}). Where there is no connection of the
	 * client's (a virtual server's member exchange, whose consumer takes the body at its own pace), {@code onGone} runs
	 * at once: nothing waits for a socket there.
	 */
	default DataBuffer wrap(byte[] bytes, int offset, int length, Runnable onGone) {
		DataBuffer buffer = bufferFactory().wrap(ByteBuffer.wrap(bytes, offset, length).slice());
		onGone.run();
		return buffer;
	}

	/**
	 * Commits and writes {@code body} as it comes, flushing whenever no further buffer is ready (a burst costs one
	 * flush, a lone buffer is never held back for a later one): for a whole answer and for an event stream alike. Demand
	 * comes from the connection, so a slow client slows the source.
	 */
	Mono<Void> write(Publisher<? extends DataBuffer> body);

	/**
	 * Commits and writes {@code body}, flushing after every buffer: for an event stream whose every element is one event
	 * that must reach the client on its own.
	 */
	Mono<Void> writeAndFlushEach(Publisher<? extends DataBuffer> body);

	/** Commits the response without a body. */
	Mono<Void> complete();

	/**
	 * Runs {@code action} once, just before the status and headers go out (after every change the relay made to
	 * them): for headers every answer carries, whoever writes it (CORS).
	 */
	void beforeCommit(Runnable action);

	/** Whether the status and headers went out already: nothing can be said differently any more. */
	boolean committed();

	/**
	 * Closes the client's connection at once, whatever is queued for it: for a client that reads nothing, which would
	 * never take the rest of a response (nor an error event), while what is queued for it stays in memory. Does nothing
	 * where there is no connection of the client's (a virtual server's member exchange).
	 */
	void closeConnection();

	/**
	 * Whether a reader is there to take what is written: always, for a client's connection; not while a virtual
	 * server's member stream is held for a client GET still to come, whose holder bounds what it holds. A response
	 * without a reader is never taken for one whose client stalled ({@code timeouts.client-write}).
	 */
	default boolean readerPresent() {
		return true;
	}

}
