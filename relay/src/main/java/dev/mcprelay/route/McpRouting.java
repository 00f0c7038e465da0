package dev.mcprelay.route;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.core.env.Environment;
import org.springframework.core.env.Profiles;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.demo.DemoMcpServer;

/**
 * Makes the routing decision of each request ({@link McpRoute}), once: the path as it arrived is parsed
 * ({@link McpPath}) and the id looked up among the configured servers and virtual servers. Reactor Netty's route
 * ({@code web.McpRoutes}) decides before anything else reads the request and carries the decision with it; for the
 * requests WebFlux carries (none the relay observes), the first component that asks keeps it in the exchange's
 * attributes, and every later reader gets the same object. A {@code /{id}/mcp} path whose id is a path of the relay
 * itself (the actuator's base path, {@code .well-known}, the demo upstream) is not the MCP endpoint's.
 */
@Component
public class McpRouting {

	private static final String ATTRIBUTE = McpRoute.class.getName();

	private final Map<String, McpRoute> servers;

	private final McpRoute defaultRoute;

	private final Set<String> reserved;

	private final List<ConfigurationProblem> problems;

	public McpRouting(RelayProperties properties, Environment environment) {
		Map<String, McpRoute> byId = new LinkedHashMap<>();
		properties.servers().keySet().forEach(id -> byId.put(id, new McpRoute(McpRoute.Kind.SERVER, id, null)));
		properties.virtualServers().keySet()
			.forEach(id -> byId.putIfAbsent(id, new McpRoute(McpRoute.Kind.VIRTUAL, id, null)));
		this.servers = Map.copyOf(byId);
		String defaultId = properties.defaultServer() != null ? properties.defaultServer()
				: properties.servers().size() == 1 ? properties.servers().keySet().iterator().next() : null;
		McpRoute configuredDefault = defaultId == null ? null : servers.get(defaultId);
		this.defaultRoute = configuredDefault != null ? configuredDefault : McpRoute.NO_DEFAULT_SERVER;
		this.reserved = reservedSegments(environment);
		this.problems = basePathProblems(environment);
	}

	/** The decision for {@code exchange}: made now if no component asked before. */
	public McpRoute routeOf(ServerWebExchange exchange) {
		Map<String, Object> attributes = exchange.getAttributes();
		Object decided = attributes.get(ATTRIBUTE);
		if (decided instanceof McpRoute route) {
			return route;
		}
		McpRoute route = resolve(exchange.getRequest().getPath().pathWithinApplication().value());
		attributes.put(ATTRIBUTE, route);
		return route;
	}

	/** The decision for a path as it arrived (percent-encoded, no query), within the application. */
	public McpRoute resolve(String rawPath) {
		McpPath path = McpPath.parse(rawPath);
		return switch (path.form()) {
			case DEFAULT -> defaultRoute;
			case MCP_FIRST -> server(path.segment());
			case MCP_LAST -> reserved.contains(path.segment()) ? McpRoute.NOT_MCP : server(path.segment());
			case AMBIGUOUS -> new McpRoute(McpRoute.Kind.AMBIGUOUS_PATH, null, path.problem());
			case OTHER -> McpRoute.NOT_MCP;
		};
	}

	/**
	 * The decision for a message a virtual server sends configured server {@code id}, one of its members: the same
	 * object a client request to that server gets.
	 */
	public McpRoute serverRoute(String id) {
		McpRoute route = servers.get(id);
		if (route == null || route.kind() != McpRoute.Kind.SERVER) {
			throw new IllegalArgumentException("Not a configured server: " + id);
		}
		return route;
	}

	/** The first path segments the relay serves itself, which no server id may take. */
	public Set<String> reservedSegments() {
		return reserved;
	}

	/**
	 * What in the environment contradicts this routing, for the start-up check to report: a
	 * {@code spring.webflux.base-path}, which would move WebFlux's paths (the actuator, the RFC 9728 metadata) under a
	 * prefix while the MCP paths, served ahead of WebFlux, stay at the root: a relay half under the prefix.
	 */
	public List<ConfigurationProblem> configurationProblems() {
		return problems;
	}

	private static List<ConfigurationProblem> basePathProblems(Environment environment) {
		String basePath = environment.getProperty("spring.webflux.base-path", "").trim();
		if (basePath.isEmpty() || basePath.equals("/")) {
			return List.of();
		}
		return List.of(new ConfigurationProblem("spring.webflux.base-path",
				"'" + basePath + "' is not supported: the MCP paths are served at the root, ahead of WebFlux, and would "
						+ "not move under it with the actuator",
				"Remove it, and let the proxy or ingress in front of the relay strip the prefix"));
	}

	private McpRoute server(String id) {
		McpRoute route = servers.get(id);
		return route != null ? route : new McpRoute(McpRoute.Kind.UNKNOWN_SERVER, id, null);
	}

	/** The first path segments the relay serves itself: the actuator's, RFC 9728 metadata's, the demo's. */
	private static Set<String> reservedSegments(Environment environment) {
		Set<String> reserved = new TreeSet<>();
		reserved.add(firstSegment(environment.getProperty("management.endpoints.web.base-path", "/actuator")));
		reserved.add(".well-known");
		if (environment.acceptsProfiles(Profiles.of("demo"))) {
			reserved.add(DemoMcpServer.SEGMENT);
		}
		reserved.remove("");
		return Set.copyOf(reserved);
	}

	private static String firstSegment(String path) {
		String trimmed = path.startsWith("/") ? path.substring(1) : path;
		int slash = trimmed.indexOf('/');
		return slash < 0 ? trimmed : trimmed.substring(0, slash);
	}

}
