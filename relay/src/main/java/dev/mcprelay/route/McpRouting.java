package dev.mcprelay.route;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import org.springframework.core.env.Profiles;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.demo.DemoMcpServer;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;

/**
 * Makes the routing decision of each request ({@link McpRoute}), once: the path as it arrived is parsed
 * ({@link McpPath}) and the id looked up among the configured servers and virtual servers. Reactor Netty's route
 * ({@code web.McpRoutes}) decides before anything else reads the request and carries the decision with it; for the
 * requests WebFlux carries (none the relay observes), the first component that asks keeps it in the exchange's
 * attributes, and every later reader gets the same object. A {@code /{id}/mcp} path whose id is a path of the relay
 * itself (the actuator's base path, {@code .well-known}, the demo upstream) is not the MCP endpoint's.
 *
 * <p>The ids it routes to are a part of each configuration snapshot ({@link Routes}, compiled here): a request is
 * routed on the snapshot it took at its first byte, so a server added by a reload is routed to from the next request
 * on, and a removed one is unknown (404) from then on. What the environment decides (the paths the relay serves itself)
 * is read once at start-up, as a change there needs a restart.
 */
@Component
public class McpRouting implements SnapshotPart<McpRouting.Routes> {

	private static final String ATTRIBUTE = McpRoute.class.getName();

	private final Set<String> reserved;

	private final List<ConfigurationProblem> problems;

	private final ObjectProvider<LiveConfiguration> live;

	public McpRouting(Environment environment, ObjectProvider<LiveConfiguration> live) {
		this.reserved = reservedSegments(environment);
		this.problems = basePathProblems(environment);
		this.live = live;
	}

	/**
	 * The ids of one snapshot's servers and virtual servers, by id, and the route of {@code /mcp}.
	 *
	 * @param servers the route of each id
	 * @param defaultRoute where {@code /mcp} goes
	 */
	public record Routes(Map<String, McpRoute> servers, McpRoute defaultRoute) {
	}

	@Override
	public String partName() {
		return "routes";
	}

	/** A server id that is also the first segment of a path the relay serves itself, and the base-path problem. */
	@Override
	public List<ConfigurationProblem> problems(RelayProperties properties) {
		List<ConfigurationProblem> found = new java.util.ArrayList<>(problems);
		properties.servers().keySet().stream().filter(reserved::contains).sorted().forEach(id -> found.add(
				new ConfigurationProblem("mcp-relay.servers." + id, "the id '" + id
						+ "' is a path of the relay itself (ids it cannot take: " + String.join(", ", reserved) + ")",
						"Give the server another id")));
		return found;
	}

	@Override
	public Routes compile(SnapshotCompilation compilation) {
		RelayProperties properties = compilation.properties();
		Map<String, McpRoute> byId = new LinkedHashMap<>();
		properties.servers().keySet().forEach(id -> byId.put(id, new McpRoute(McpRoute.Kind.SERVER, id, null)));
		properties.virtualServers().keySet()
			.forEach(id -> byId.putIfAbsent(id, new McpRoute(McpRoute.Kind.VIRTUAL, id, null)));
		Map<String, McpRoute> servers = Map.copyOf(byId);
		String defaultId = properties.defaultServer() != null ? properties.defaultServer()
				: properties.servers().size() == 1 ? properties.servers().keySet().iterator().next() : null;
		McpRoute configuredDefault = defaultId == null ? null : servers.get(defaultId);
		return new Routes(servers, configuredDefault != null ? configuredDefault : McpRoute.NO_DEFAULT_SERVER);
	}

	/**
	 * The decision for {@code exchange}: made now, on the current snapshot, if no component asked before. Only the
	 * requests WebFlux carries ask here (none the relay observes).
	 */
	public McpRoute routeOf(ServerWebExchange exchange) {
		Map<String, Object> attributes = exchange.getAttributes();
		Object decided = attributes.get(ATTRIBUTE);
		if (decided instanceof McpRoute route) {
			return route;
		}
		McpRoute route = resolve(live.getObject().current(),
				exchange.getRequest().getPath().pathWithinApplication().value());
		attributes.put(ATTRIBUTE, route);
		return route;
	}

	/**
	 * The decision for a path as it arrived (percent-encoded, no query), within the application, on the servers of
	 * {@code snapshot}.
	 */
	public McpRoute resolve(ConfigurationSnapshot snapshot, String rawPath) {
		McpPath path = McpPath.parse(rawPath);
		Routes routes = of(snapshot);
		return switch (path.form()) {
			case DEFAULT -> routes.defaultRoute();
			case MCP_FIRST -> server(routes, path.segment());
			case MCP_LAST -> reserved.contains(path.segment()) ? McpRoute.NOT_MCP : server(routes, path.segment());
			case AMBIGUOUS -> new McpRoute(McpRoute.Kind.AMBIGUOUS_PATH, null, path.problem());
			case OTHER -> McpRoute.NOT_MCP;
		};
	}

	/**
	 * The decision for a message a virtual server sends configured server {@code id}, one of its members: the same
	 * object a client request to that server gets.
	 */
	public McpRoute serverRoute(ConfigurationSnapshot snapshot, String id) {
		McpRoute route = of(snapshot).servers().get(id);
		if (route == null || route.kind() != McpRoute.Kind.SERVER) {
			throw new IllegalArgumentException("Not a configured server: " + id);
		}
		return route;
	}

	/** The first path segments the relay serves itself, which no server id may take. */
	public Set<String> reservedSegments() {
		return reserved;
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

	private static McpRoute server(Routes routes, String id) {
		McpRoute route = routes.servers().get(id);
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
