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

import dev.mcprelay.bridge.BridgeFlights;
import dev.mcprelay.bridge.ServerVersions;
import dev.mcprelay.bridge.VersionBridge;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionsProperties;
import dev.mcprelay.config.UpstreamTransportKind;
import dev.mcprelay.intercept.UnmatchedAnswers;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.security.RelayMac;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.session.SessionStoreConfiguration;
import dev.mcprelay.transport.StreamableHttpTransport;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.sse.HeldLimits;
import dev.mcprelay.transport.sse.LegacySseTransport;
import dev.mcprelay.upstream.UpstreamTokens;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * The transport each configured upstream speaks ({@code mcp-relay.servers.<id>.transport}): Streamable HTTP is one
 * stateless transport for every such server, behind a {@link VersionBridge} of the server's (which knows its
 * protocol versions and bridges a client of the other generation); each legacy SSE server gets a bridge of its own,
 * which keeps its sessions. Both kinds are a part of each configuration snapshot: made when a snapshot brings the
 * server (at start-up, not on first use: a bridge seeds its session-id generator, which may block), kept across
 * reloads while the server is the same {@link Upstream}; a legacy SSE bridge is closed (its bridged sessions ended)
 * when a reload removes or changes the server, and at shutdown. A version bridge made for a changed server keeps
 * the versions learnt for it while its URL and pinned versions are the same; the sessions it bridges are in the
 * session store, and outlive the change, and what they have in flight on this replica is in the one
 * {@link BridgeFlights} made here and given to every version bridge (closed at shutdown).
 */
@Component
public class UpstreamTransports implements DisposableBean, SnapshotPart<Map<Upstream, UpstreamTransport>> {

	private final StreamableHttpTransport streamableHttp;

	private final HttpClient upstreamHttpClient;

	private final UpstreamRegistry upstreams;

	private final MeterRegistry registry;

	private final HeldOverflows overflows;

	/** Looked up when a bridge drops an answer (it depends, through the interceptor chains, on this). */
	private final ObjectProvider<UnmatchedAnswers> unmatched;

	/**
	 * Told of each list change a version bridge relays to no client; looked up then (it depends, through the policies'
	 * catalogues and their lister, on this).
	 */
	private final ObjectProvider<ListChangedWatch> listChanges;

	/** The bridges of every snapshot a request may still run on, by server. */
	private final Map<Upstream, LegacySseTransport> bridges = new ConcurrentHashMap<>();

	/** The servers whose bridged-sessions gauge is registered. */
	private final Set<String> gauged = ConcurrentHashMap.newKeySet();

	/** Each Streamable HTTP server's transport of every snapshot a request may still run on: the version bridge. */
	private final Map<Upstream, VersionBridge> versionBridges = new ConcurrentHashMap<>();

	/** Where the version bridges keep the sessions of bridged 2025 clients. */
	private final SessionStore sessionStore;

	/**
	 * What the version bridges' sessions have in flight on this replica, shared by every version bridge made here (the
	 * one a reload makes for a server reaches what the previous one started); closed with this.
	 */
	private final BridgeFlights bridgeFlights;

	/** The relay's key, which signs what a version bridge gives a client to bring back (a held call's requestState). */
	private final RelayMac mac;

	/** The relay's own tokens for servers with {@code oauth2}, which its own requests to learn about a server carry. */
	private final UpstreamTokens tokens;

	UpstreamTransports(StreamableHttpTransport streamableHttp, HttpClient upstreamHttpClient,
			UpstreamRegistry upstreams, MeterRegistry registry, HeldOverflows overflows,
			ObjectProvider<UnmatchedAnswers> unmatched, SessionStore sessionStore, RelayProperties properties,
			RelayMac mac, ObjectProvider<ListChangedWatch> listChanges, UpstreamTokens tokens) {
		this.tokens = tokens;
		this.mac = mac;
		this.listChanges = listChanges;
		this.unmatched = unmatched;
		this.sessionStore = sessionStore;
		// sessions.idle-timeout is read at start-up only (a reload does not change it)
		this.bridgeFlights = new BridgeFlights(sessionStore, properties.sessions().idleTimeout());
		this.streamableHttp = streamableHttp;
		this.upstreamHttpClient = upstreamHttpClient;
		this.upstreams = upstreams;
		this.registry = registry;
		this.overflows = overflows;
	}

	@Override
	public String partName() {
		return "upstream transports";
	}

	@Override
	public Map<Upstream, UpstreamTransport> compile(SnapshotCompilation compilation) {
		SessionsProperties sessions = compilation.properties().sessions();
		Map<Upstream, UpstreamTransport> made = new IdentityHashMap<>();
		for (Upstream upstream : compilation.part(upstreams).all()) {
			if (upstream.properties().transport() == UpstreamTransportKind.SSE) {
				made.put(upstream, bridges.computeIfAbsent(upstream, server -> bridge(server, sessions)));
			}
			else {
				made.put(upstream, versionBridges.computeIfAbsent(upstream, server -> {
					ServerOwnCredentials.warnWhenOnlyTheCallersCredential(server);
					return versionBridge(server,
							new ServerOwnCredentials(server, tokens.ownTokens(compilation, server.id())));
				}));
			}
		}
		return Collections.unmodifiableMap(made);
	}

	/**
	 * Forgets the version bridge of each Streamable HTTP server the new snapshot removed or changed (what it bridged is
	 * in the session store), and retires the bridge of each legacy SSE server it removed or changed (its sessions end): a POST
	 * still waiting on a removed server's session fails {@code server_removed}, on a changed one's
	 * {@code session_ended}; the changed server's new bridge remembers the ended sessions' ids, so that a request
	 * naming one is answered {@code session_ended} (404) and its client initializes again. Runs after the servers'
	 * part told their streams ({@link UpstreamRegistry#replaced}, which this part reads), so that a removed server's
	 * streams end as its other streams do ({@code server_removed}, counted).
	 */
	@Override
	public void replaced(Map<Upstream, UpstreamTransport> previous, Map<Upstream, UpstreamTransport> next) {
		previous.forEach((upstream, transport) -> {
			if (next.containsKey(upstream)) {
				return;
			}
			if (!(transport instanceof LegacySseTransport bridge)) {
				versionBridges.remove(upstream);
				return;
			}
			bridges.remove(upstream);
			LegacySseTransport successor = next.entrySet().stream()
				.filter(entry -> entry.getKey().id().equals(upstream.id())).map(Map.Entry::getValue)
				.filter(LegacySseTransport.class::isInstance).map(LegacySseTransport.class::cast).findFirst()
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
				upstream.properties().timeouts().ownWork(), upstream.maxBufferedBody().toBytes(),
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

	/**
	 * The version bridge of Streamable HTTP server {@code upstream}; it shares what was learnt of the server's versions
	 * with the bridge of the server's previous settings when they name the same URL and pin the same versions. Its own
	 * requests to learn about the server carry {@code credentials}.
	 */
	private VersionBridge versionBridge(Upstream upstream, ServerOwnCredentials credentials) {
		ServerVersions versions = versionBridges.entrySet().stream()
			.filter(entry -> entry.getKey().id().equals(upstream.id())
					&& entry.getKey().uri().equals(upstream.uri())
					&& entry.getKey().properties().protocolVersions().equals(upstream.properties().protocolVersions()))
			.map(entry -> entry.getValue().versions()).findFirst()
			.orElseGet(() -> new ServerVersions(upstream.id(), upstream.properties().protocolVersions()));
		return new VersionBridge(streamableHttp, upstream.id(), versions, upstream.maxBufferedBody().toBytes(),
				sessionStore, bridgeFlights, upstream.streamingIdleTimeout(), mac, upstream.nonStreamingTimeout(),
				(server, method) -> listChanges.getObject().heard(server, method), credentials);
	}

	/** The sessions open now on every bridge of server {@code id} (an old one ending, a new one beginning). */
	private int openSessions(String id) {
		return bridges.entrySet().stream().filter(entry -> entry.getKey().id().equals(id))
			.mapToInt(entry -> entry.getValue().openSessions()).sum();
	}

	/**
	 * The transport of {@code upstream}, as the snapshot it belongs to (the request's) configures it: Streamable HTTP
	 * behind the server's version bridge, or the server's legacy SSE bridge. A request of a snapshot a reload has since
	 * replaced, whose server it removed or changed, gets a version bridge of its own that knows the pinned versions
	 * only, and whose own requests carry the server's static credentials but no {@code oauth2} token (its snapshot's
	 * token source is not at hand: such a request is refused, and nothing learnt). A legacy SSE server's request whose bridge a reload has since closed (it removed or
	 * changed the server) is never sent as Streamable HTTP: it fails as for a session that ended, which a client
	 * answers by initializing anew, on the new settings.
	 */
	public UpstreamTransport of(Upstream upstream) {
		if (upstream.properties().transport() != UpstreamTransportKind.SSE) {
			VersionBridge versionBridge = versionBridges.get(upstream);
			return versionBridge != null ? versionBridge
					: versionBridge(upstream, new ServerOwnCredentials(upstream, null));
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
		bridgeFlights.close();
	}

}
