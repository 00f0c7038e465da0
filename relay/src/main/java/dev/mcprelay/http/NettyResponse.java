package dev.mcprelay.http;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.HttpStatusCode;

import dev.mcprelay.metrics.ExchangeRecord;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A {@link RelayResponse} on Reactor Netty's own response: the status and headers are Netty's, the response commits
 * with the body's first buffer (or its end, when it is empty), and the body goes to the connection as Reactor Netty
 * sends it ({@code send} of a {@link Mono}: one full message; of any other publisher: flushed whenever no further
 * buffer is ready; {@code sendGroups}: flushed per group), every byte counted into the request's {@link ExchangeRecord}.
 * A buffer Reactor Netty took and did not send (the write failed or was cancelled) is released by it; one the source
 * still held is the source's to release (the relay's sources release what they discard). A write that fails because
 * the client's connection is gone fails with {@link ClientConnectionClosed}.
 */
final class NettyResponse implements RelayResponse {

	private final HttpServerResponse response;

	private final NettyDataBufferFactory buffers;

	private final ExchangeRecord record;

	private final List<Runnable> beforeCommit = new ArrayList<>(1);

	private volatile boolean committed;

	NettyResponse(HttpServerResponse response, NettyDataBufferFactory buffers, ExchangeRecord record) {
		this.response = response;
		this.buffers = buffers;
		this.record = record;
	}

	@Override
	public void status(HttpStatusCode status) {
		response.status(HttpResponseStatus.valueOf(status.value()));
	}

	@Override
	public HttpHeaders headers() {
		return response.responseHeaders();
	}

	@Override
	public DataBufferFactory bufferFactory() {
		return buffers;
	}

	/**
	 * The bytes in a direct buffer (one copy, the one the transport would make of a heap buffer), which Netty releases
	 * once they are on the socket, or when it drops them: then {@code onGone} runs.
	 */
	@Override
	public DataBuffer wrap(byte[] bytes, int offset, int length, Runnable onGone) {
		return buffers.wrap(new NoticingDirectBuffer(buffers.getByteBufAllocator(), bytes, offset, length, onGone));
	}

	/**
	 * A body that is one {@link Mono} goes out as one message, head and body in a single write and flush (Reactor
	 * Netty's full response: no separate end-of-body write); any other body as Reactor Netty sends a stream.
	 */
	@Override
	public Mono<Void> write(Publisher<? extends DataBuffer> body) {
		if (body instanceof Mono<? extends DataBuffer> single) {
			// Reactor Netty's one-message send releases the buffer itself when the connection is already gone
			return single.flatMap(buffer -> {
				commit();
				return response.sendObject(counted(buffer)).then();
			}).onErrorMap(this::clientGone, ClientConnectionClosed::new).then(complete());
		}
		return writeOnFirst(body, all -> response.send(all.map(this::counted)));
	}

	@Override
	public Mono<Void> writeAndFlushEach(Publisher<? extends DataBuffer> body) {
		return writeOnFirst(body, all -> response.sendGroups(all.map(buffer -> Mono.just(counted(buffer)))));
	}

	/**
	 * Commits when {@code body}'s first buffer is there, or when it ends empty, as WebFlux does: a body that fails
	 * before its first buffer leaves the response uncommitted, for the relay to answer the failure.
	 */
	private Mono<Void> writeOnFirst(Publisher<? extends DataBuffer> body,
			Function<Flux<DataBuffer>, Publisher<Void>> send) {
		return Flux.<DataBuffer>from(body).switchOnFirst((first, all) -> {
			if (first.isOnError()) {
				return Mono.<Void>error(first.getThrowable());
			}
			commit();
			if (first.isOnComplete()) {
				return Mono.<Void>empty();
			}
			if (!connected()) {
				// Reactor Netty would refuse the body without taking its first buffer: released here, the rest by
				// its source when cancelled
				return all.take(1).doOnNext(DataBufferUtils::release).then(Mono.error(new ClientConnectionClosed(null)));
			}
			return send.apply(all);
		}).then().onErrorMap(this::clientGone, ClientConnectionClosed::new);
	}

	/** Whether a write failed because the client's connection is gone (not because its body failed). */
	private boolean clientGone(Throwable error) {
		if (!ClientConnectionClosed.isClientGone(error) || error instanceof ClientConnectionClosed) {
			return false;
		}
		return !connected();
	}

	/** Whether the client's connection is still open. */
	private boolean connected() {
		boolean[] active = { true };
		response.withConnection(connection -> active[0] = connection.channel().isActive());
		return active[0];
	}

	@Override
	public Mono<Void> complete() {
		// Reactor Netty sends the head, with no body, when the handling completes without a write.
		return Mono.fromRunnable(this::commit);
	}

	@Override
	public void beforeCommit(Runnable action) {
		beforeCommit.add(action);
	}

	@Override
	public boolean committed() {
		return committed || response.hasSentHeaders();
	}

	@Override
	public void closeConnection() {
		response.withConnection(Connection::dispose);
	}

	/** Whether Reactor Netty sent a response of its own (see {@link RelayExchange#answeredByServer()}). */
	boolean sentByServer() {
		return !committed && response.hasSentHeaders();
	}

	/** Runs the actions before the head goes out, once, and records the status the client gets. */
	private void commit() {
		if (!committed) {
			committed = true;
			beforeCommit.forEach(Runnable::run);
			record.answered(response.status().code());
		}
	}

	private ByteBuf counted(DataBuffer buffer) {
		record.countBytes(buffer.readableByteCount());
		return NettyDataBufferFactory.toByteBuf(buffer);
	}

}
