package dev.mcprelay.proxy;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import org.springframework.util.unit.DataSize;

import reactor.core.publisher.Mono;

import dev.mcprelay.api.Caller;
import dev.mcprelay.bridge.ServerVersions;
import dev.mcprelay.bridge.VersionBridge;
import dev.mcprelay.config.RejectedServerRequests;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.config.UpstreamTransportKind;

/**
 * A configured upstream MCP server, resolved from the {@code {server}} path segment.
 *
 * @param id the server id, the key under {@code mcp-relay.servers}
 * @param properties its validated configuration
 * @param uri the upstream endpoint
 * @param lifetime what every version of this server shares: its removal and its later versions, so that a stream
 * still open on settings a reload changed ends too when a later reload removes the server or withdraws its caller's
 * access ({@link OpenStreams})
 */
public record Upstream(String id, ServerProperties properties, URI uri, ServerLifetime lifetime) {

	Upstream(String id, ServerProperties properties) {
		this(id, properties, properties.uri(), new ServerLifetime());
	}

	/** The same server with {@code changed} settings: a new {@code Upstream} with this one's lifetime. */
	Upstream changedTo(ServerProperties changed) {
		return new Upstream(id, changed, changed.uri(), lifetime);
	}

	/** Completes when a reload removed this server (not when it changed it: its streams finish on these settings). */
	public Mono<Void> removed() {
		return lifetime.removed();
	}

	/**
	 * Whether a reload has removed this server since this version was current (by its lifetime: a server added again
	 * under its id is another one, and does not make this one configured again). Asked right before a request goes
	 * upstream ({@link AccessCheckedBeforeForwarding}); one volatile read.
	 */
	public boolean isRemoved() {
		return lifetime.isRemoved();
	}

	/**
	 * Completes when a reload made current a version of this server that {@code caller} may not use
	 * ({@link #admits}): its {@code allowed-scopes} changed to none the caller's token carries. Streams opened on this
	 * version, or on an earlier one, end then.
	 */
	public Mono<Void> withdrawnFrom(Caller caller) {
		return lifetime.versions().filter(next -> next != this && !next.admits(caller)).next().then();
	}

	/**
	 * Completes when a reload changed this server so that the session {@code sessionId}, which the relay bridged on
	 * these settings, ends, for a stream of that session: every stream of a legacy SSE server ({@code transport: sse}),
	 * whose bridge ends with each of its sessions ({@link UpstreamTransports#replaced}); for a Streamable HTTP server,
	 * the streams of a session its version bridge gave a 2025 client (its GET stream, a call streaming its answer),
	 * once a reload pins {@code protocol-versions} of the session era: the server is then spoken to in that era, and the
	 * session cannot continue ({@link ServerVersions#pinnedToEraOf}). Never for any other stream: a Streamable HTTP
	 * server's streams finish on the settings they began with.
	 */
	public Mono<Void> bridgeRetired(String sessionId) {
		if (properties.transport() == UpstreamTransportKind.SSE) {
			return lifetime.versions().filter(next -> next != this).next().then();
		}
		if (!VersionBridge.isBridgedSession(sessionId)) {
			return Mono.never();
		}
		return lifetime.versions()
			.filter(next -> next != this && ServerVersions.pinsSessionEra(next.properties().protocolVersions()))
			.next()
			.then();
	}

	/**
	 * Whether {@code caller} may use this server by its {@code allowed-scopes}: a token must carry one of them when
	 * there are any; other callers are not concerned.
	 */
	public boolean admits(Caller caller) {
		List<String> allowed = properties.allowedScopes();
		return caller == null || caller.kind() != Caller.Kind.JWT || allowed.isEmpty()
				|| allowed.stream().anyMatch(caller.scopes()::contains);
	}

	/** Called once the configuration without this server is current: ends the streams open on it. */
	void remove() {
		lifetime.remove();
	}

	/** Called once the configuration with {@code next}, this server changed, is current. */
	void changedTo(Upstream next) {
		lifetime.changedTo(next);
	}

	public Duration nonStreamingTimeout() {
		return properties.timeouts().nonStreaming();
	}

	public Duration streamingIdleTimeout() {
		return properties.timeouts().streamingIdle();
	}

	public Duration clientWriteTimeout() {
		return properties.timeouts().clientWrite();
	}

	/** Whether the client is told, with a warning notification, of a server request an interceptor rejected. */
	public boolean notifiesRejectedServerRequests() {
		return properties.rejectedServerRequests() == RejectedServerRequests.NOTIFY;
	}

	public DataSize maxBufferedBody() {
		return properties.maxBufferedBody();
	}

	@Override
	public String toString() {
		return "Upstream[" + id + " -> " + properties.redactedUrl() + "]";
	}

}
