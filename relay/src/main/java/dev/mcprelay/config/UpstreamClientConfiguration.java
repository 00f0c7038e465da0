package dev.mcprelay.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.mcprelay.transport.EventStreamReadBatching;
import dev.mcprelay.transport.StreamableHttpTransport;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * The one Reactor Netty {@link HttpClient} the relay talks to upstreams with, used directly (no WebClient: its
 * per-request builder and codec work cost more than the relay needs). It is built from scratch, not from Boot's
 * instrumented customizers, so that no upstream URL (which may carry a key in its query) becomes a metric tag; it
 * never follows redirects, never asks for compression, pools connections for long-lived streams, and reads an
 * event stream a socket read at a time ({@link EventStreamReadBatching}).
 *
 * <p>The pool of an upstream address is not disposed when inactive ({@code disposeInactivePoolsInBackground}): it keeps
 * the configuration of the acquisition that created it, but that holds nothing of a request once its exchange ended
 * ({@code UpstreamExchange}, review 46l N2), and there is one pool per upstream address the configuration named; an
 * inactive pool costs a few objects, disposing it would only move the first request's retention to the next quiet
 * spell (the configuration is kept by every open connection as well) and make a rarely used upstream open a pool
 * again.
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
	HttpClient upstreamHttpClient(ConnectionProvider upstreamConnectionProvider) {
		return HttpClient.create(upstreamConnectionProvider)
			.compress(false)
			.followRedirect(false)
			.doOnResponse(EventStreamReadBatching::installOnEventStream);
	}

	@Bean
	StreamableHttpTransport streamableHttpTransport(HttpClient upstreamHttpClient) {
		return new StreamableHttpTransport(upstreamHttpClient);
	}

}
