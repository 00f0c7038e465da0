package dev.mcprelay.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import dev.mcprelay.proxy.WriteSignallingConnector;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * The one {@link WebClient} the relay talks to upstreams with. It is built from scratch, not from Boot's
 * instrumented builder, so that no upstream URL (which may carry a key in its query) becomes a metric tag; it
 * never follows redirects, never asks for compression, pools connections for long-lived streams, and tells each
 * request when it has been written ({@link WriteSignallingConnector}).
 */
@Configuration(proxyBeanMethods = false)
class UpstreamClientConfiguration {

	@Bean(destroyMethod = "dispose")
	ConnectionProvider upstreamConnectionProvider(RelayProperties properties) {
		ConnectionPoolProperties pool = properties.connectionPool();
		return ConnectionProvider.builder("mcp-relay-upstream")
			.maxConnections(pool.maxConnections())
			.pendingAcquireMaxCount(-1)
			.maxIdleTime(pool.maxIdleTime())
			.evictInBackground(pool.maxIdleTime())
			.build();
	}

	@Bean
	WebClient upstreamWebClient(ConnectionProvider upstreamConnectionProvider) {
		HttpClient httpClient = HttpClient.create(upstreamConnectionProvider).compress(false).followRedirect(false);
		return WebClient.builder()
			.clientConnector(new WriteSignallingConnector(new ReactorClientHttpConnector(httpClient)))
			.build();
	}

}
