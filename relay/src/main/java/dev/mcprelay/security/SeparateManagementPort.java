package dev.mcprelay.security;

import java.net.InetSocketAddress;

import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

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
		InetSocketAddress local = exchange.getRequest().getLocalAddress();
		return separate && local != null && local.getPort() != relayPort() ? MatchResult.match() : MatchResult.notMatch();
	}

	/** The relay's own port, where MCP is served (the management server runs in a child of this context). */
	private int relayPort() {
		return context instanceof WebServerApplicationContext server && server.getWebServer() != null
				? server.getWebServer().getPort() : -1;
	}

}
