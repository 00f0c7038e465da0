package dev.mcprelay.web;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.NullNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.http.RequestReadTimeout;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/**
 * Puts {@code client-connections.request-read-timeout} on every client connection ({@link RequestReadTimeout}), with
 * the relay's own answer to a request whose head never came whole: the same JSON-RPC error as a body that stopped
 * arriving ({@link RelayFailures#requestReadTimeout}, 408 {@code request_read_timeout}), id null.
 */
@Component
class RequestReadTimeoutCustomizer implements NettyServerCustomizer {

	private final RelayProperties properties;

	private final byte[] errorBody;

	RequestReadTimeoutCustomizer(RelayProperties properties) {
		this.properties = properties;
		RelayFailure stalled = RelayFailures.requestReadTimeout();
		this.errorBody = JsonRpcErrors.toBytes(
				JsonRpcErrors.error(NullNode.getInstance(), stalled.code(), stalled.getMessage(), stalled.data()));
	}

	@Override
	public HttpServer apply(HttpServer server) {
		return server.doOnChannelInit((observer, channel, remoteAddress) -> RequestReadTimeout.install(
				channel.pipeline(), NettyPipeline.HttpCodec, properties.clientConnections().requestReadTimeout(),
				errorBody));
	}

}
