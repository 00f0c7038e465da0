package dev.mcprelay.proxy;

import java.net.URI;
import java.time.Duration;

import org.springframework.util.unit.DataSize;

import dev.mcprelay.config.RejectedServerRequests;
import dev.mcprelay.config.ServerProperties;

/**
 * A configured upstream MCP server, resolved from the {@code {server}} path segment.
 *
 * @param id the server id, the key under {@code mcp-relay.servers}
 * @param properties its validated configuration
 * @param uri the upstream endpoint
 */
public record Upstream(String id, ServerProperties properties, URI uri) {

	Upstream(String id, ServerProperties properties) {
		this(id, properties, properties.uri());
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
