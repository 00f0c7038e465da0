package dev.mcprelay.security;

import java.net.InetSocketAddress;

import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;
import reactor.netty.http.server.ConnectionInformation;

/**
 * Matches a request that reached the actuator on a port of its own ({@code management.server.port} set apart from
 * {@code server.port}): the way an operator keeps the management endpoints where only the cluster reaches them
 * (Kubernetes: Prometheus and the kubelet's probes on the pod's management port, which no Service exposes and a
 * NetworkPolicy limits). Such requests need no credential; the relay's own port then serves no management endpoint at
 * all. Where the actuator shares the relay's port, nothing matches.
 */
final class SeparateManagementPort implements ServerWebExchangeMatcher {

	private final boolean separate;

	private final ApplicationContext context;

	SeparateManagementPort(Environment environment, ApplicationContext context) {
		this.separate = ManagementPortType.get(environment) == ManagementPortType.DIFFERENT;
		this.context = context;
	}

	/** Whether the actuator has a port of its own. */
	boolean separate() {
		return separate;
	}

	@Override
	public Mono<MatchResult> matches(ServerWebExchange exchange) {
		int port = separate ? connectionPort(exchange) : -1;
		return port > 0 && port != relayPort() ? MatchResult.match() : MatchResult.notMatch();
	}

	/**
	 * The port the request's connection reached, from the socket itself: never from {@code Forwarded} or
	 * {@code X-Forwarded-Port}, which {@code server.forward-headers-strategy: native} lets a client write into the
	 * request's own address. {@code -1} when unknown (then nothing matches).
	 */
	private static int connectionPort(ServerWebExchange exchange) {
		Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
		if (nativeRequest instanceof ConnectionInformation connection
				&& connection.connectionHostAddress() instanceof InetSocketAddress local) {
			return local.getPort();
		}
		return -1;
	}

	/** The relay's own port, where MCP is served (the management server runs in a child of this context). */
	private int relayPort() {
		return context instanceof WebServerApplicationContext server && server.getWebServer() != null
				? server.getWebServer().getPort() : -1;
	}

}
