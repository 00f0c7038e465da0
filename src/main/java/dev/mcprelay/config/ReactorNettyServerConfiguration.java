package dev.mcprelay.config;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.embedded.netty.NettyRouteProvider;
import org.springframework.boot.web.embedded.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * Pins the relay's HTTP server to Reactor Netty. The streaming guarantees (a flush per SSE event, a client that
 * disconnects cancelling its upstream exchange) are built and tested on it; without this bean, Spring Boot would
 * pick Tomcat whenever a servlet container is on the classpath, as it is in the tests that host an MCP SDK server.
 * {@code server.*} properties still apply through Boot's factory customizers.
 */
@Configuration(proxyBeanMethods = false)
class ReactorNettyServerConfiguration {

	@Bean
	ReactorResourceFactory reactorServerResourceFactory() {
		return new ReactorResourceFactory();
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

}
