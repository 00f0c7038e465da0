package dev.mcprelay.config;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Keeps an HTTP/1.1 keep-alive connection to the relay reading after each response it sends.
 *
 * <p>
 * Reactor Netty 1.2.x (the line Spring Boot 3.5 ships) reads client connections on demand and can stop reading one
 * for good: when a request arrives before the previous one's handling has finished, it is queued, and if the queued
 * request is then answered at once, the queue drains without the next read being requested
 * (<a href="https://github.com/reactor/reactor-netty/issues/4361">reactor-netty#4361</a>, fixed in 1.3 only). The
 * client's next request on that connection then waits forever: no answer, no error, no idle reaping. Any answer the
 * relay gives without a round trip upstream (a rejection, a relay error, a health probe) can trigger it.
 *
 * <p>
 * Installed in front of Reactor Netty's traffic handler on every client connection, this handler asks the channel
 * for one more read after the last part of every response has been written, as a task queued behind the ones
 * Reactor Netty schedules for the same response. When a read is already pending the request is a no-op; when none
 * is, it is the read the connection was missing. Reading is still bounded by Reactor Netty's own handling: a request
 * that arrives while another is in progress is queued as a pipelined request, exactly as if the client had sent it
 * early. Nothing is changed on the wire.
 */
@ChannelHandler.Sharable
final class KeepAliveReadRearm extends ChannelDuplexHandler {

	static final String NAME = "mcpRelayKeepAliveReadRearm";

	static final KeepAliveReadRearm INSTANCE = new KeepAliveReadRearm();

	private KeepAliveReadRearm() {
	}

	@Override
	public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
		if (msg instanceof LastHttpContent) {
			Channel channel = ctx.channel();
			ctx.write(msg, promise.unvoid()).addListener(written -> {
				if (written.isSuccess()) {
					channel.eventLoop().execute(() -> requestRead(channel));
				}
			});
			return;
		}
		ctx.write(msg, promise);
	}

	private static void requestRead(Channel channel) {
		if (channel.isActive() && !channel.config().isAutoRead()) {
			channel.read();
		}
	}

}
