package dev.mcprelay.transport;

import java.io.IOException;
import java.util.function.BiFunction;

import org.reactivestreams.Publisher;
import org.springframework.http.HttpHeaders;

import io.netty.handler.codec.http.HttpHeaderNames;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.NettyOutbound;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientRequest;
import reactor.netty.http.client.HttpClientResponse;

/**
 * One HTTP exchange with an upstream ({@link UpstreamHttp#exchange}): the request written on a pooled connection,
 * the response read by the caller's reader, and a new acquisition when the pool had only dead connections to give.
 *
 * <p>Reactor Netty's pool hands out an idle connection that looked alive, then, on the connection's event loop,
 * finds it closed (the upstream closed it while idle, and the loop read its FIN in between), discards it and takes
 * another once; when that one is dead too the acquisition fails with an {@link IOException} "Error while acquiring
 * from ..." without a cause ({@code DefaultPooledConnectionProvider.DisposableAcquire.run}, Reactor Netty 1.3). It
 * happens when an upstream closes several idle keep-alive connections at once (Node 20's http server about 6 s after
 * its last answer: keepAliveTimeout 5 s) and the relay's event loops are busy. Nothing was written then: the exchange
 * is attempted again at once, on the thread that saw the failure, on a new acquisition, up to {@value #MAX_ATTEMPTS}
 * attempts in all, and only while the request's writer never ran (no
 * connection was live for it, so neither the headers, nor the body, nor {@code onWritten}, nor the reader ran). Any
 * other failure, and that one past the last attempt, fails the exchange as it came (the relay answers
 * {@code upstream_unreachable}). A request never sent is safe to send, POST included, as gateways do (nginx's
 * {@code proxy_next_upstream error}, Envoy's {@code reset-before-request}). Cancelling the exchange cancels the
 * attempt in progress; no attempt follows.
 *
 * <p>The instance is the request's writer (one allocation, as the lambda it replaces) and holds whether it ran; its
 * {@link Mono} is meant to be subscribed once.
 *
 * <p>Reactor Netty keeps the writer beyond the exchange: the pool of an upstream address is made with the configuration
 * of the acquisition that created it, whose body is this writer, and keeps it for the life of the process (review 46l,
 * N2). So the exchange drops what it was made from (headers, body, {@code onWritten}, reader: the caller's credential
 * and request) when it ends, whichever way (answered, failed, cancelled), and a configuration that outlives it keeps an
 * empty shell. They are held as one {@link Parts}, read once by each of their readers: the writer, on the connection's
 * event loop, when a connection took the request; the retry, on the thread that saw the failure, before the exchange
 * ends. An exchange that is answered or fails has been written (or never will be), so dropping them then takes nothing
 * from a live request; one cancelled before a connection took it has nothing to send, and its writer, if Reactor Netty
 * still runs it, writes nothing and fails.
 */
final class UpstreamExchange implements BiFunction<HttpClientRequest, NettyOutbound, Publisher<Void>> {

	/** Attempts in all, each of which may find up to two dead pooled connections. */
	static final int MAX_ATTEMPTS = 3;

	/** The start of the message of Reactor Netty's failure when the connections it picked were all dead. */
	private static final String DEAD_POOLED_CONNECTIONS = "Error while acquiring from ";

	private final HttpClient.RequestSender sender;

	/** What the exchange is made from, until it ends; then {@code null}. */
	private volatile Parts parts;

	private final int attempt;

	/** Set when a live connection took the request: from then on the exchange is never attempted again. */
	private volatile boolean written;

	UpstreamExchange(HttpClient.RequestSender sender, HttpHeaders headers, byte[] body, Runnable onWritten,
			BiFunction<? super HttpClientResponse, ? super ByteBufFlux, ? extends Publisher<Void>> reader,
			int attempt) {
		this(sender, new Parts(headers, body, onWritten, reader), attempt);
	}

	private UpstreamExchange(HttpClient.RequestSender sender, Parts parts, int attempt) {
		this.sender = sender;
		this.parts = parts;
		this.attempt = attempt;
	}

	/**
	 * The exchange: completes when the reader's publisher completes; fails as {@link UpstreamExchange} says. When it
	 * ends (after any attempt made again), the exchange drops what it was made from ({@link #holdsRequest}) before
	 * its subscriber is told.
	 */
	Mono<Void> mono() {
		Parts request = parts;
		if (request == null) {
			return Mono.error(new IllegalStateException("the upstream exchange has ended: it is subscribed once"));
		}
		return sender.send(this)
			.response(request.reader())
			.then()
			.onErrorResume(this::retryOrFail)
			.doOnTerminate(this::drop)
			.doOnCancel(this::drop);
	}

	/**
	 * Drops what the exchange was made from. Runs before the end reaches the subscriber (not after, as
	 * {@code doFinally} would): whoever sees the exchange answered or failed sees it empty.
	 */
	private void drop() {
		parts = null;
	}

	/** Whether the exchange still holds what it was made from: until it ends. */
	boolean holdsRequest() {
		return parts != null;
	}

	/**
	 * Writes the request on the connection Reactor Netty acquired for it; writes nothing, and fails, when the exchange
	 * ended (was cancelled) before.
	 */
	@Override
	public Publisher<Void> apply(HttpClientRequest request, NettyOutbound outbound) {
		Parts taken = parts;
		if (taken == null) {
			return Mono.error(new IllegalStateException("the upstream exchange ended before a connection took it"));
		}
		written = true;
		io.netty.handler.codec.http.HttpHeaders out = request.requestHeaders();
		WireHeaders.replaceAll(out, WireHeaders.nettyOf(taken.headers()));
		byte[] body = taken.body();
		Mono<Void> sent;
		if (body == null) {
			sent = outbound.then();
		}
		else {
			out.remove(HttpHeaderNames.TRANSFER_ENCODING);
			out.set(HttpHeaderNames.CONTENT_LENGTH, body.length);
			sent = outbound.sendByteArray(Mono.just(body)).then();
		}
		Runnable onWritten = taken.onWritten();
		return onWritten == null ? sent : sent.doOnSuccess(done -> onWritten.run());
	}

	/** The next attempt when {@link #retries} says so, else the failure as it came. */
	private Mono<Void> retryOrFail(Throwable error) {
		Parts request = parts;
		if (request != null && retries(error, written, attempt)) {
			return new UpstreamExchange(sender, request, attempt + 1).mono();
		}
		return Mono.error(error);
	}

	/**
	 * Whether an exchange that failed with {@code error} on its {@code attempt}-th attempt is attempted again: only
	 * when the pool found only dead connections ({@link #foundOnlyDeadConnections}), nothing was written, and
	 * attempts remain.
	 */
	static boolean retries(Throwable error, boolean written, int attempt) {
		return !written && attempt < MAX_ATTEMPTS && foundOnlyDeadConnections(error);
	}

	/**
	 * Whether {@code error} is Reactor Netty's failure to acquire a connection because the pooled ones it picked were
	 * closed: a plain {@link IOException} (not a refusal, reset or premature close, which are subclasses or carry a
	 * cause) with its message.
	 */
	static boolean foundOnlyDeadConnections(Throwable error) {
		return error.getClass() == IOException.class && error.getCause() == null && error.getMessage() != null
				&& error.getMessage().startsWith(DEAD_POOLED_CONNECTIONS);
	}

	/** What an exchange is made from: the request's headers, its body ({@code null} for none), and the callbacks. */
	private record Parts(HttpHeaders headers, byte[] body, Runnable onWritten,
			BiFunction<? super HttpClientResponse, ? super ByteBufFlux, ? extends Publisher<Void>> reader) {
	}

}
