package dev.mcprelay.proxy;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.route.McpRoute;

/**
 * The configured upstream servers by id, a part of each configuration snapshot ({@link Upstreams}): compiled once per
 * snapshot, after the whole configuration was validated ({@link LiveConfiguration}). A server whose settings did not
 * change keeps the very {@link Upstream} of the previous snapshot, so that its open streams and a new request see one
 * server; a changed server is a new {@code Upstream}, and the streams opened on the old one finish on its settings.
 */
@Component
public class UpstreamRegistry implements SnapshotPart<UpstreamRegistry.Upstreams> {

	private static final Logger log = LoggerFactory.getLogger(UpstreamRegistry.class);

	private final ObjectProvider<LiveConfiguration> live;

	public UpstreamRegistry(ObjectProvider<LiveConfiguration> live) {
		this.live = live;
	}

	/** One snapshot's upstream servers, in configuration order. */
	public static final class Upstreams {

		private final Map<String, Upstream> byId;

		Upstreams(Map<String, Upstream> byId) {
			this.byId = byId;
		}

		/** The configured server with this id, or {@code null}. */
		public Upstream find(String id) {
			return id == null ? null : byId.get(id);
		}

		/** Every configured upstream. */
		public Collection<Upstream> all() {
			return byId.values();
		}

		/**
		 * The upstream an endpoint route names, or the {@link RelayFailure} (404) that says why there is none: an
		 * unknown server (naming none of the servers that exist), or {@code /mcp} without a default server (saying how
		 * to pick one).
		 */
		public Upstream require(McpRoute route) {
			return switch (route.kind()) {
				case SERVER -> {
					Upstream upstream = byId.get(route.target());
					if (upstream == null) {
						throw RelayFailures.unknownServer(route.target());
					}
					yield upstream;
				}
				case UNKNOWN_SERVER -> throw RelayFailures.unknownServer(route.target());
				case NO_DEFAULT_SERVER -> throw RelayFailures.noDefaultServer();
				default -> throw new IllegalArgumentException("Not an MCP endpoint route: " + route.kind());
			};
		}

	}

	@Override
	public String partName() {
		return "servers";
	}

	@Override
	public Upstreams compile(SnapshotCompilation compilation) {
		RelayProperties properties = compilation.properties();
		Upstreams previous = compilation.previous(this);
		Map<String, Upstream> byId = new LinkedHashMap<>();
		properties.servers().forEach((id, server) -> byId.put(id, reuse(previous, id, server)));
		if (previous == null) {
			logServers(properties, byId);
		}
		return new Upstreams(java.util.Collections.unmodifiableMap(byId));
	}

	/**
	 * The previous snapshot's {@code Upstream} when its settings are the same; the server {@linkplain Upstream#changedTo
	 * changed} when they differ (a removal later ends the streams of its every version); a new one for a server added.
	 */
	private static Upstream reuse(Upstreams previous, String id, ServerProperties server) {
		Upstream before = previous == null ? null : previous.find(id);
		if (before == null) {
			return new Upstream(id, server);
		}
		return before.properties().equals(server) ? before : before.changedTo(server);
	}

	private static void logServers(RelayProperties properties, Map<String, Upstream> byId) {
		if (byId.isEmpty()) {
			log.warn("No MCP servers are configured: add them under mcp-relay.servers; every request will get 404");
		}
		byId.values()
			.forEach(upstream -> log.info("Relaying /mcp/{} and /{}/mcp to {}", upstream.id(), upstream.id(),
					upstream.properties().redactedUrl()));
		String defaultId = properties.defaultServer() != null ? properties.defaultServer()
				: byId.size() == 1 ? byId.keySet().iterator().next() : null;
		if (defaultId != null && byId.containsKey(defaultId)) {
			log.info("Relaying /mcp to '{}'", defaultId);
		}
	}

	/**
	 * Ends the open streams of each server the new snapshot no longer has ({@link Upstream#removed}); a changed
	 * server's streams go on, on the settings they began with, but for those of callers the new settings no longer
	 * admit ({@link Upstream#withdrawnFrom}).
	 */
	@Override
	public void replaced(Upstreams previous, Upstreams next) {
		previous.all().forEach(upstream -> {
			Upstream now = next.find(upstream.id());
			if (now == null) {
				upstream.remove();
			}
			else if (now != upstream) {
				upstream.changedTo(now);
			}
		});
	}

	/** The servers of {@code snapshot}. */
	public Upstreams in(ConfigurationSnapshot snapshot) {
		return of(snapshot);
	}

	/**
	 * The server the request of {@code context} addresses, as the request's own configuration snapshot configures it
	 * ({@link CallConfiguration#of}), never as a reload since configures it: what the request lists, is bounded by and
	 * is decided from is the server it was sent to. The current snapshot's for a context the relay did not make;
	 * {@code null} for a server the snapshot lacks.
	 */
	public Upstream addressedBy(CallContext context) {
		ConfigurationSnapshot snapshot = CallConfiguration.of(context);
		return snapshot != null ? of(snapshot).find(context.server()) : find(context.server());
	}

	/** The configured server with this id in the current snapshot, or {@code null}. */
	public Upstream find(String id) {
		return of(live.getObject().current()).find(id);
	}

	/** Every configured upstream of the current snapshot. */
	public Collection<Upstream> all() {
		return of(live.getObject().current()).all();
	}

}
