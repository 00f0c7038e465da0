package dev.mcprelay.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.ReadTimeoutException;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * {@code client-connections.request-read-timeout} on one client connection: from the first byte of a request to its
 * last (its request line, its headers, its body, also the rest of a body the relay no longer needs because it answered
 * already), the client may not go quiet for longer than the bound. Between two requests (a keep-alive connection
 * waiting, {@code client-connections.idle-timeout}'s business) and while a response goes out after the whole request
 * came (a stream of any length) nothing is timed. Reactor Netty's own read timeout covers only a body whose headers
 * came and whose answer has not begun: a partial request line or header block, or the rest of a body after a 401, held
 * a connection until the idle timeout.
 *
 * <p>Two handlers share the connection's state: one before the HTTP codec sees every read of the client's bytes (a
 * request begins with its first byte, and each read restarts the clock: one timer, which looks at the last read when it
 * fires, as Netty's idle handlers do); one after it sees where a request ends (its
 * last content) and whether the relay has answered it (a response head written). When the client has been quiet for
 * the bound:
 * <ul>
 * <li>its request's head came and the relay has not answered: the request's body fails with Netty's
 * {@link ReadTimeoutException} ({@link ClientRequestStalled}), which the relay answers 408
 * {@code request_read_timeout}, logged and counted as the client's error; then the connection is closed;</li>
 * <li>its request's head never came whole: no request was read, so there is nobody to log or count it for; the relay
 * writes the same 408 JSON-RPC error itself (id null) and closes the connection (DEBUG);</li>
 * <li>the relay answered already (the rest of a body it did not need): the connection is closed (DEBUG), the answer's
 * access line is written.</li>
 * </ul>
 * All of it runs on the connection's event loop.
 */
public final class RequestReadTimeout {

	/** The name of the handler before the HTTP codec. */
	public static final String BYTES = "mcpRelayRequestReadBytes";

	/** The name of the handler after the HTTP codec. */
	public static final String MESSAGES = "mcpRelayRequestReadMessages";

	private static final Logger log = LoggerFactory.getLogger(RequestReadTimeout.class);

	private final long timeoutNanos;

	/** The whole 408 the relay writes itself when no request was read: head and JSON-RPC error. */
	private final byte[] answer;

	/** Whether a request has begun and not ended: a byte of it came, not yet its last content. */
	private boolean receiving;

	/** Whether the request being received has its head decoded: the relay has a request to answer. */
	private boolean headCame;

	/** Whether the relay wrote a response head to the request being received. */
	private boolean answered;

	/** When the client's last bytes came ({@link System#nanoTime()}). */
	private long lastRead;

	/** Runs while a request is being received, at most one at a time; it looks at {@link #lastRead} when it fires. */
	private ScheduledFuture<?> clock;

	private ChannelHandlerContext bytesContext;

	private ChannelHandlerContext messagesContext;

	private RequestReadTimeout(Duration timeout, byte[] answer) {
		this.timeoutNanos = timeout.toNanos();
		this.answer = answer;
	}

	/**
	 * Installs the bound on a client connection's {@code pipeline} around its HTTP codec {@code codecName}: before it
	 * and after it. A pipeline without that codec (not HTTP/1.1) is left alone.
	 *
	 * @param errorBody the JSON-RPC error (id null) of a 408 the relay writes itself, when no request head came whole
	 */
	public static void install(ChannelPipeline pipeline, String codecName, Duration timeout, byte[] errorBody) {
		if (pipeline.get(codecName) == null) {
			return;
		}
		RequestReadTimeout bound = new RequestReadTimeout(timeout, answerOf(errorBody));
		pipeline.addBefore(codecName, BYTES, bound.new Bytes());
		pipeline.addAfter(codecName, MESSAGES, bound.new Messages());
	}

	private static byte[] answerOf(byte[] errorBody) {
		byte[] head = ("HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: "
				+ errorBody.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
		byte[] whole = new byte[head.length + errorBody.length];
		System.arraycopy(head, 0, whole, 0, head.length);
		System.arraycopy(errorBody, 0, whole, head.length, errorBody.length);
		return whole;
	}

	private void bytesCame() {
		lastRead = System.nanoTime();
		if (!receiving) {
			receiving = true;
			headCame = false;
			answered = false;
		}
		if (clock == null) {
			clock = bytesContext.executor().schedule(this::expired, timeoutNanos, TimeUnit.NANOSECONDS);
		}
	}

	private void requestEnded() {
		receiving = false;
		stop();
	}

	private void stop() {
		if (clock != null) {
			clock.cancel(false);
			clock = null;
		}
	}

	private void expired() {
		clock = null;
		if (!receiving || !bytesContext.channel().isActive()) {
			return;
		}
		long quiet = System.nanoTime() - lastRead;
		if (quiet < timeoutNanos) {
			// bytes came since the clock was set: it runs on from the last of them
			clock = bytesContext.executor().schedule(this::expired, timeoutNanos - quiet, TimeUnit.NANOSECONDS);
			return;
		}
		receiving = false;
		if (headCame && !answered) {
			// the relay reads this request's body: it fails, and the relay answers 408 and logs it as any refusal
			messagesContext.fireExceptionCaught(ReadTimeoutException.INSTANCE);
			messagesContext.close();
			return;
		}
		if (headCame) {
			log.debug("Closing a client connection whose request body stopped arriving after it was answered, for {}",
					Duration.ofNanos(timeoutNanos));
			bytesContext.close();
			return;
		}
		log.debug("Closing a client connection whose request head stopped arriving, for {}: answered 408",
				Duration.ofNanos(timeoutNanos));
		bytesContext.writeAndFlush(Unpooled.wrappedBuffer(answer)).addListener(ChannelFutureListener.CLOSE);
	}

	/** Sees every read of the client's bytes, before the codec. */
	private final class Bytes extends ChannelInboundHandlerAdapter {

		@Override
		public void handlerAdded(ChannelHandlerContext ctx) {
			bytesContext = ctx;
		}

		@Override
		public void channelRead(ChannelHandlerContext ctx, Object msg) {
			if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
				bytesCame();
			}
			ctx.fireChannelRead(msg);
		}

		@Override
		public void channelInactive(ChannelHandlerContext ctx) {
			receiving = false;
			stop();
			ctx.fireChannelInactive();
		}

	}

	/** Sees where a request's head and its end come, and the relay's answer, after the codec. */
	private final class Messages extends ChannelDuplexHandler {

		@Override
		public void handlerAdded(ChannelHandlerContext ctx) {
			messagesContext = ctx;
		}

		@Override
		public void channelRead(ChannelHandlerContext ctx, Object msg) {
			if (msg instanceof HttpRequest) {
				headCame = true;
			}
			if (msg instanceof LastHttpContent) {
				requestEnded();
			}
			ctx.fireChannelRead(msg);
		}

		@Override
		public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
			// an interim answer (100 Continue) asks for the body: the request is not answered yet
			if (receiving && msg instanceof HttpResponse response
					&& response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
				answered = true;
			}
			ctx.write(msg, promise);
		}

	}

}
