package dev.mcprelay.proxy;

import java.net.URI;
import java.time.Duration;

import org.springframework.util.unit.DataSize;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.mcprelay.config.RejectedServerRequests;
import dev.mcprelay.config.ServerProperties;

/**
 * A configured upstream MCP server, resolved from the {@code {server}} path segment.
 *
 * @param id the server id, the key under {@code mcp-relay.servers}
 * @param properties its validated configuration
 * @param uri the upstream endpoint
 * @param removal completes when a reload removed the server: the streams open on it end ({@link OpenStreams}); one
 * signal for the server's id from when it was added to when it is removed, shared by each {@code Upstream} its changes
 * made, so that a stream still open on settings a reload changed ends too when a later reload removes the server
 */
public record Upstream(String id, ServerProperties properties, URI uri, Sinks.Empty<Void> removal) {

	Upstream(String id, ServerProperties properties) {
		this(id, properties, properties.uri(), Sinks.empty());
	}

	/** The same server with {@code changed} settings: a new {@code Upstream} with this one's removal signal. */
	Upstream changedTo(ServerProperties changed) {
		return new Upstream(id, changed, changed.uri(), removal);
	}

	/** Completes when a reload removed this server (not when it changed it: its streams finish on these settings). */
	public Mono<Void> removed() {
		return removal.asMono();
	}

	/** Called once the configuration without this server is current: ends the streams open on it. */
	void remove() {
		removal.tryEmitEmpty();
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
