package dev.mcprelay.proxy;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.SessionsProperties;
import dev.mcprelay.config.UpstreamTransportKind;
import dev.mcprelay.intercept.UnmatchedAnswers;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStoreConfiguration;
import dev.mcprelay.transport.StreamableHttpTransport;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.sse.HeldLimits;
import dev.mcprelay.transport.sse.LegacySseTransport;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * The transport each configured upstream speaks ({@code mcp-relay.servers.<id>.transport}): Streamable HTTP is one
 * stateless transport for every such server; each legacy SSE server gets a bridge of its own, which keeps its
 * sessions. The bridges are a part of each configuration snapshot: made when a snapshot brings a legacy SSE server (at
 * start-up, not on first use: a bridge seeds its session-id generator, which may block), kept across reloads while
 * the server is the same {@link Upstream}, and closed (its bridged sessions ended) when a reload removes or changes the
 * server, and at shutdown.
 */
@Component
public class UpstreamTransports implements DisposableBean, SnapshotPart<Map<Upstream, LegacySseTransport>> {

	private final StreamableHttpTransport streamableHttp;

	private final HttpClient upstreamHttpClient;

	private final UpstreamRegistry upstreams;

	private final MeterRegistry registry;

	private final HeldOverflows overflows;

	/** Looked up when a bridge drops an answer (it depends, through the interceptor chains, on this). */
	private final ObjectProvider<UnmatchedAnswers> unmatched;

	/** The bridges of every snapshot a request may still run on, by server. */
	private final Map<Upstream, LegacySseTransport> bridges = new ConcurrentHashMap<>();

	/** The servers whose bridged-sessions gauge is registered. */
	private final Set<String> gauged = ConcurrentHashMap.newKeySet();

	UpstreamTransports(StreamableHttpTransport streamableHttp, HttpClient upstreamHttpClient,
			UpstreamRegistry upstreams, MeterRegistry registry, HeldOverflows overflows,
			ObjectProvider<UnmatchedAnswers> unmatched) {
		this.unmatched = unmatched;
		this.streamableHttp = streamableHttp;
		this.upstreamHttpClient = upstreamHttpClient;
		this.upstreams = upstreams;
		this.registry = registry;
		this.overflows = overflows;
	}

	@Override
	public String partName() {
		return "legacy SSE bridges";
	}

	@Override
	public Map<Upstream, LegacySseTransport> compile(SnapshotCompilation compilation) {
		SessionsProperties sessions = compilation.properties().sessions();
		Map<Upstream, LegacySseTransport> made = new IdentityHashMap<>();
		for (Upstream upstream : compilation.part(upstreams).all()) {
			if (upstream.properties().transport() == UpstreamTransportKind.SSE) {
				made.put(upstream, bridges.computeIfAbsent(upstream, server -> bridge(server, sessions)));
			}
		}
		return Collections.unmodifiableMap(made);
	}

	/**
	 * Retires the bridge of each legacy SSE server the new snapshot removed or changed (its sessions end): a POST
	 * still waiting on a removed server's session fails {@code server_removed}, on a changed one's
	 * {@code session_ended}; the changed server's new bridge remembers the ended sessions' ids, so that a request
	 * naming one is answered {@code session_ended} (404) and its client initializes again. Runs after the servers'
	 * part told their streams ({@link UpstreamRegistry#replaced}, which this part reads), so that a removed server's
	 * streams end as its other streams do ({@code server_removed}, counted).
	 */
	@Override
	public void replaced(Map<Upstream, LegacySseTransport> previous, Map<Upstream, LegacySseTransport> next) {
		previous.forEach((upstream, bridge) -> {
			if (next.containsKey(upstream)) {
				return;
			}
			bridges.remove(upstream);
			LegacySseTransport successor = next.entrySet().stream()
				.filter(entry -> entry.getKey().id().equals(upstream.id())).map(Map.Entry::getValue).findFirst()
				.orElse(null);
			// the snapshot without it is current: a server it still has was changed (maybe to another transport)
			boolean removed = upstreams.find(upstream.id()) == null;
			Set<String> ended = bridge.retire(removed ? RelayFailures.retiredSessionOfRemovedServer(upstream.id())
					: RelayFailures.retiredSessionOfChangedServer(upstream.id()));
			if (successor != null) {
				successor.endedBefore(ended);
			}
		});
	}

	private LegacySseTransport bridge(Upstream upstream, SessionsProperties sessions) {
		Consumer<SessionKey> evicted = SessionStoreConfiguration.evictedSessions(registry);
		LegacySseTransport bridge = new LegacySseTransport(upstreamHttpClient, upstream.id(), upstream.uri(),
				upstream.nonStreamingTimeout().multipliedBy(4).dividedBy(5), upstream.maxBufferedBody().toBytes(),
				sessions.maxBridgedSessions(), sessions.maxPerCaller(), sessions.idleTimeout(),
				() -> evicted.accept(new SessionKey(upstream.id(), "<ended>")),
				new HeldLimits(sessions.maxHeldBytes().toBytes(),
						() -> overflows.overflowed(upstream.id(), HeldOverflows.BRIDGE_ANSWER),
						() -> overflows.overflowed(upstream.id(), HeldOverflows.BRIDGE_STREAM)),
				() -> unmatched.getObject().droppedByTransport(upstream.id()));
		if (gauged.add(upstream.id())) {
			// one gauge per server, over every bridge it has now (a bridge a reload made replaces another)
			Gauge.builder(RelayMeters.BRIDGED_SESSIONS, () -> openSessions(upstream.id()))
				.description("Sessions bridged to a legacy HTTP+SSE upstream, open now")
				.tag(RelayMeters.SERVER, upstream.id())
				.register(registry);
		}
		return bridge;
	}

	/** The sessions open now on every bridge of server {@code id} (an old one ending, a new one beginning). */
	private int openSessions(String id) {
		return bridges.entrySet().stream().filter(entry -> entry.getKey().id().equals(id))
			.mapToInt(entry -> entry.getValue().openSessions()).sum();
	}

	/**
	 * The transport of {@code upstream}, as the snapshot it belongs to (the request's) configures it: Streamable HTTP,
	 * or the server's bridge. A legacy SSE server's request whose bridge a reload has since closed (it removed or
	 * changed the server) is never sent as Streamable HTTP: it fails as for a session that ended, which a client
	 * answers by initializing anew, on the new settings.
	 */
	public UpstreamTransport of(Upstream upstream) {
		if (upstream.properties().transport() != UpstreamTransportKind.SSE) {
			return streamableHttp;
		}
		LegacySseTransport bridge = bridges.get(upstream);
		return bridge != null ? bridge : RETIRED;
	}

	/** The transport of a legacy SSE server whose bridge a reload closed: every request ends as its session did. */
	private static final UpstreamTransport RETIRED = new UpstreamTransport() {

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return ended(request);
		}

		@Override
		public Mono<Void> receive(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return ended(request);
		}

		@Override
		public Mono<Void> close(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return ended(request);
		}

		private Mono<Void> ended(UpstreamRequest request) {
			return Mono.error(new UpstreamTransportException(UpstreamTransportException.Kind.UNKNOWN_SESSION,
					"session_ended", "This MCP session of server '" + request.serverId() + "' has ended: a configuration "
							+ "reload changed or removed the server; initialize a new one."));
		}

	};

	@Override
	public void destroy() {
		bridges.values().forEach(LegacySseTransport::close);
	}

}
