package dev.mcprelay.proxy;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

import dev.mcprelay.bridge.ServerVersions;
import dev.mcprelay.bridge.VersionBridge;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionsProperties;
import dev.mcprelay.config.UpstreamTransportKind;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.session.SessionStoreConfiguration;
import dev.mcprelay.transport.StreamableHttpTransport;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.sse.HeldLimits;
import dev.mcprelay.transport.sse.LegacySseTransport;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.netty.http.client.HttpClient;

/**
 * The transport each configured upstream speaks ({@code mcp-relay.servers.<id>.transport}): Streamable HTTP is one
 * stateless transport for every such server, behind a {@link VersionBridge} of the server's (which knows its protocol
 * versions); each legacy SSE server gets a bridge of its own, which keeps its sessions and ends them at shutdown.
 */
@Component
public class UpstreamTransports implements DisposableBean {

	private final StreamableHttpTransport streamableHttp;

	private final Map<String, LegacySseTransport> bridges = new HashMap<>();

	/** Each Streamable HTTP server's transport: the relay's own, behind the version bridge. */
	private final Map<String, VersionBridge> versionBridges = new HashMap<>();

	UpstreamTransports(StreamableHttpTransport streamableHttp, HttpClient upstreamHttpClient,
			UpstreamRegistry upstreams, RelayProperties properties, MeterRegistry registry, HeldOverflows overflows,
			SessionStore sessionStore) {
		this.streamableHttp = streamableHttp;
		SessionsProperties sessions = properties.sessions();
		Consumer<SessionKey> evicted = SessionStoreConfiguration.evictedSessions(registry);
		// made at start-up, not on first use: a bridge seeds its session-id generator, which may block
		upstreams.all().stream().filter(upstream -> upstream.properties().transport() == UpstreamTransportKind.SSE)
			.forEach(upstream -> bridges.put(upstream.id(), new LegacySseTransport(upstreamHttpClient, upstream.id(),
					upstream.uri(), upstream.nonStreamingTimeout().multipliedBy(4).dividedBy(5),
					upstream.maxBufferedBody().toBytes(), sessions.maxBridgedSessions(), sessions.maxPerCaller(),
					sessions.idleTimeout(), () -> evicted.accept(new SessionKey(upstream.id(), "<ended>")),
					new HeldLimits(sessions.maxHeldBytes().toBytes(),
							() -> overflows.overflowed(upstream.id(), HeldOverflows.BRIDGE_ANSWER),
							() -> overflows.overflowed(upstream.id(), HeldOverflows.BRIDGE_STREAM)))));
		upstreams.all().stream().filter(upstream -> upstream.properties().transport() != UpstreamTransportKind.SSE)
			.forEach(upstream -> versionBridges.put(upstream.id(), new VersionBridge(streamableHttp, upstream.id(),
					new ServerVersions(upstream.id(), upstream.properties().protocolVersions()),
					upstream.maxBufferedBody().toBytes(), sessionStore)));
		bridges.forEach((id, bridge) -> Gauge.builder(RelayMeters.BRIDGED_SESSIONS, bridge, LegacySseTransport::openSessions)
			.description("Sessions bridged to a legacy HTTP+SSE upstream, open now")
			.tag(RelayMeters.SERVER, id)
			.register(registry));
	}

	public UpstreamTransport of(Upstream upstream) {
		LegacySseTransport bridge = bridges.get(upstream.id());
		if (bridge != null) {
			return bridge;
		}
		VersionBridge versionBridge = versionBridges.get(upstream.id());
		return versionBridge != null ? versionBridge : streamableHttp;
	}

	@Override
	public void destroy() {
		bridges.values().forEach(LegacySseTransport::close);
	}

}
