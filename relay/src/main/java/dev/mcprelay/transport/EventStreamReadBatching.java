package dev.mcprelay.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.LastHttpContent;
import reactor.netty.Connection;
import reactor.netty.http.client.HttpClientResponse;

/**
 * Hands an upstream event stream's body on in the pieces the socket delivered it in, not in the pieces the server
 * wrote it in.
 *
 * <p>
 * A server that writes each Server-Sent Event on its own sends it, chunked, as one HTTP chunk; Netty's decoder turns
 * each chunk into one message, and every message would take the whole way through the relay (split, check, write,
 * flush) on its own: a fast stream of small events cost the relay a trip per event. Installed on an upstream
 * connection when a {@code text/event-stream} response's headers arrive, this handler joins the body parts of one
 * socket read into one buffer and passes it on when the read is complete, so a burst costs one trip. Nothing waits
 * for more bytes than the read brought: latency is unchanged. A batch is passed on early once it reaches
 * {@value #MAX_BATCH_BYTES} bytes, and always before the end of the body, an error or the connection's end, so bytes
 * keep their order and nothing is held back. Reactor Netty removes the handler when the exchange ends; bytes it still
 * holds then are passed on, never dropped.
 */
public final class EventStreamReadBatching extends ChannelInboundHandlerAdapter {

	static final String NAME = "mcpRelayEventStreamReadBatching";

	/** The largest batch passed on: a read of more is passed on in pieces of about this size. */
	static final int MAX_BATCH_BYTES = 64 * 1024;

	/** The bytes of this read not yet passed on: the first part as it came, or a buffer several were copied to. */
	private ByteBuf batch;

	private boolean copied;

	private EventStreamReadBatching() {
	}

	/** A handler of its own, for tests of its bytes. */
	static EventStreamReadBatching forTest() {
		return new EventStreamReadBatching();
	}

	/** For {@code HttpClient.doOnResponse}: installs the batching on the connection when the body is an event stream. */
	public static void installOnEventStream(HttpClientResponse response, Connection connection) {
		String contentType = response.responseHeaders().get(HttpHeaderNames.CONTENT_TYPE);
		if (contentType != null && contentType.regionMatches(true, 0, "text/event-stream", 0, 17)) {
			connection.addHandlerLast(NAME, new EventStreamReadBatching());
		}
	}

	@Override
	public void channelRead(ChannelHandlerContext ctx, Object msg) {
		if (!(msg instanceof HttpContent content) || msg instanceof LastHttpContent) {
			passOn(ctx);
			ctx.fireChannelRead(msg);
			return;
		}
		ByteBuf bytes = content.content();
		if (batch == null) {
			batch = bytes;
		}
		else {
			if (!copied) {
				ByteBuf first = batch;
				batch = ctx.alloc().buffer(Math.max(first.readableBytes() + bytes.readableBytes(), 4096));
				batch.writeBytes(first);
				first.release();
				copied = true;
			}
			batch.writeBytes(bytes);
			bytes.release();
		}
		if (batch.readableBytes() >= MAX_BATCH_BYTES) {
			passOn(ctx);
		}
	}

	@Override
	public void channelReadComplete(ChannelHandlerContext ctx) {
		passOn(ctx);
		ctx.fireChannelReadComplete();
	}

	@Override
	public void channelInactive(ChannelHandlerContext ctx) {
		passOn(ctx);
		ctx.fireChannelInactive();
	}

	@Override
	public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
		passOn(ctx);
		ctx.fireExceptionCaught(cause);
	}

	/**
	 * Passes on what this read brought so far: Reactor Netty removes the handler when its exchange ends, and on a pooled
	 * connection that removal can come after the next exchange started reading through this same handler (Reactor
	 * Netty keeps a handler of the same name instead of adding another), so the bytes held may be the next exchange's.
	 * Passed on, they reach whoever reads the connection now, in order, and are released there if nobody does.
	 */
	@Override
	public void handlerRemoved(ChannelHandlerContext ctx) {
		passOn(ctx);
	}

	private void passOn(ChannelHandlerContext ctx) {
		if (batch != null) {
			ByteBuf passed = batch;
			batch = null;
			copied = false;
			ctx.fireChannelRead(new DefaultHttpContent(passed));
		}
	}

}
