package dev.mcprelay.config;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.reactor.netty.NettyRouteProvider;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.boot.reactor.netty.autoconfigure.ReactorNettyProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;

import io.netty.channel.ChannelPipeline;
import io.netty.channel.epoll.EpollSocketChannel;
import reactor.netty.NettyPipeline;

/**
 * Pins the relay's HTTP server to Reactor Netty. The streaming guarantees (a flush per SSE event, a client that
 * disconnects cancelling its upstream exchange) are built and tested on it; without this bean, Spring Boot would
 * pick Tomcat whenever a servlet container is on the classpath, as it is in the tests that host an MCP SDK server.
 * {@code server.*} properties still apply through Boot's factory customizers. Every client connection also gets
 * {@link RequestTargetRepair}, which encodes what a request target may not hold.
 */
@Configuration(proxyBeanMethods = false)
class ReactorNettyServerConfiguration {

	/** What a client connection's socket may hold unsent, besides what is in flight to the client. */
	static final long CLIENT_UNSENT_BYTES = 128 * 1024;

	/**
	 * The server's event loops, in place of Spring Boot's factory, which this bean replaces; so it takes Boot's own
	 * setting for them: {@code spring.reactor.netty.shutdown-quiet-period}, how long the loops wait for quiet at
	 * shutdown (Reactor Netty's 2 s when unset).
	 */
	@Bean
	ReactorResourceFactory reactorServerResourceFactory(ObjectProvider<ReactorNettyProperties> reactorNetty) {
		ReactorResourceFactory factory = new ReactorResourceFactory();
		ReactorNettyProperties properties = reactorNetty.getIfAvailable();
		if (properties != null && properties.getShutdownQuietPeriod() != null) {
			factory.setShutdownQuietPeriod(properties.getShutdownQuietPeriod());
		}
		return factory;
	}

	@Bean
	NettyReactiveWebServerFactory nettyReactiveWebServerFactory(ReactorResourceFactory reactorServerResourceFactory,
			ObjectProvider<NettyRouteProvider> routes, ObjectProvider<NettyServerCustomizer> serverCustomizers) {
		NettyReactiveWebServerFactory factory = new NettyReactiveWebServerFactory();
		factory.setResourceFactory(reactorServerResourceFactory);
		routes.orderedStream().forEach(factory::addRouteProviders);
		factory.getServerCustomizers().addAll(serverCustomizers.orderedStream().toList());
		return factory;
	}

	/**
	 * Closes a client connection that waits idle for its next request ({@code client-connections.idle-timeout}). One
	 * whose request stalls ({@code client-connections.request-read-timeout}) is closed by
	 * {@code dev.mcprelay.web.RequestReadTimeoutCustomizer}; Reactor Netty's own read timeout is not used: it runs only
	 * from a request's decoded head until its answer begins.
	 */
	@Bean
	NettyServerCustomizer clientConnectionBounds(RelayProperties properties) {
		ClientConnectionProperties bounds = properties.clientConnections();
		return server -> server.idleTimeout(bounds.idleTimeout());
	}

	/**
	 * Bounds what a client connection's socket holds that is not sent yet ({@value #CLIENT_UNSENT_BYTES} bytes, Linux's
	 * {@code TCP_NOTSENT_LOWAT}, on the native transport the relay runs on there), so that the relay sees a slow
	 * client take its stream as it takes it ({@code timeouts.client-write}, {@code dev.mcprelay.proxy.StreamWatch}).
	 * Without it the kernel takes megabytes ahead of the client (the send buffer grows to {@code net.ipv4.tcp_wmem}'s
	 * 4 MB) and reports room again only once a third of it went out: a client reading 320 KB/s steadily showed no
	 * progress for 2 s, one reading 39 KB/s none for 30 s, and each was cut as one that stopped reading. What is in
	 * flight is bounded by the client's own receive window; throughput is not: the kernel still sends as fast as the
	 * client acknowledges.
	 */
	@Bean
	NettyServerCustomizer clientUnsentBytes() {
		return server -> server.doOnChannelInit((observer, channel, remoteAddress) -> {
			if (channel instanceof EpollSocketChannel socket) {
				socket.config().setTcpNotSentLowAt(CLIENT_UNSENT_BYTES);
			}
		});
	}

	/** Encodes what no request target may hold, so that such a request meets the relay's routing and errors. */
	@Bean
	NettyServerCustomizer requestTargetRepair() {
		return server -> server.doOnChannelInit((observer, channel, remoteAddress) -> {
			ChannelPipeline pipeline = channel.pipeline();
			if (pipeline.get(NettyPipeline.HttpTrafficHandler) != null) {
				pipeline.addBefore(NettyPipeline.HttpTrafficHandler, RequestTargetRepair.NAME, RequestTargetRepair.INSTANCE);
			}
		});
	}

}
