package dev.mcprelay.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The mcp-relay configuration tree. Property names are a public contract (users' YAML and environment
 * variables depend on them); RelayPropertiesValidator checks the whole tree at start-up.
 *
 * @param servers the upstream MCP servers by id; the id is the {server} segment of /mcp/{server} (and of
 * /{server}/mcp)
 * @param defaultServer the server /mcp itself relays to; when unset, the only configured server if there is
 * exactly one
 * @param allowedOrigins browser origins (scheme://host[:port], or *) allowed to call the relay; a request
 * that carries any other Origin header is refused with 403 (DNS-rebinding protection required by MCP).
 * Requests without an Origin header (non-browser clients) are always allowed.
 * @param connectionPool the pool of connections to upstream servers
 * @param accessLog the one-line-per-request access log
 * @param shutdown what happens to open streams on shutdown
 * @param clientConnections bounds on the connections clients open to the relay
 * @param security who may call the relay
 * @param rateLimits how many requests callers may make, rule by rule (every matching rule must allow a request)
 * @param sessions where state shared across requests lives
 * @param virtualServers endpoints that compose several servers into one, by id (DESIGN section 11); the ids share
 * one namespace with {@code servers}
 * @param tracing what the relay bounds of tracing (the traces clients may ask to be kept)
 * @param maxBufferedBodies the memory every body the relay reads whole (clients' POST bodies, JSON answers) may take
 * together, across all requests, with the JSON trees parsed from them; past it a request gets 503. Unset: a quarter of
 * the JVM's maximum heap
 * @param maxBufferedBodiesPerCaller what the requests of one caller (an API key's client, a token's caller) may hold of
 * {@code max-buffered-bodies} together, so that one caller cannot take it all from the others. Unset: half of it
 * (each server's {@code max-buffered-body}, counted twice while it is read, must fit in it)
 * @param policies who may see and call which tool, prompt and resource (DESIGN section 12), as CEL expressions
 */
@ConfigurationProperties("mcp-relay")
public record RelayProperties(
		@DefaultValue Map<String, ServerProperties> servers,
		String defaultServer,
		@DefaultValue List<String> allowedOrigins,
		@DefaultValue @NestedConfigurationProperty ConnectionPoolProperties connectionPool,
		@DefaultValue @NestedConfigurationProperty AccessLogProperties accessLog,
		@DefaultValue @NestedConfigurationProperty ShutdownProperties shutdown,
		@DefaultValue @NestedConfigurationProperty ClientConnectionProperties clientConnections,
		@DefaultValue @NestedConfigurationProperty SecurityProperties security,
		@DefaultValue List<RateLimitProperties> rateLimits,
		@DefaultValue @NestedConfigurationProperty SessionsProperties sessions,
		@DefaultValue Map<String, VirtualServerProperties> virtualServers,
		@DefaultValue @NestedConfigurationProperty TracingProperties tracing,
		DataSize maxBufferedBodies,
		DataSize maxBufferedBodiesPerCaller,
		@DefaultValue List<PolicyProperties> policies) {

	/** The share of the JVM's maximum heap that bodies may take together when {@code max-buffered-bodies} is unset. */
	public static final int DEFAULT_BUFFERED_BODIES_HEAP_SHARE = 4;

	public RelayProperties {
		// Configuration order is kept: it decides which member wins a name two publish ({@code members: ["*"]}).
		servers = servers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(servers));
		virtualServers = virtualServers == null ? Map.of()
				: Collections.unmodifiableMap(new LinkedHashMap<>(virtualServers));
		rateLimits = rateLimits == null ? List.of() : List.copyOf(rateLimits);
		policies = policies == null ? List.of() : List.copyOf(policies);
		allowedOrigins = allowedOrigins == null ? List.of() : List.copyOf(allowedOrigins);
		tracing = tracing == null ? TracingProperties.DEFAULTS : tracing;
	}

	/**
	 * What every buffered body may take together: {@code max-buffered-bodies}, or a quarter of this JVM's maximum heap
	 * ({@code -Xmx}, or the container's share of memory).
	 */
	public DataSize bufferedBodiesLimit() {
		return maxBufferedBodies != null ? maxBufferedBodies
				: DataSize.ofBytes(Runtime.getRuntime().maxMemory() / DEFAULT_BUFFERED_BODIES_HEAP_SHARE);
	}

	/**
	 * What one caller's requests may hold of {@link #bufferedBodiesLimit()} together:
	 * {@code max-buffered-bodies-per-caller}, or half of the limit, so that by default another caller always finds at
	 * least as much as one caller may hold. {@link BufferedBodiesValidator} stops start-up when the largest body a
	 * server takes, counted twice while it is read, does not fit it.
	 */
	public DataSize bufferedBodiesPerCaller() {
		return maxBufferedBodiesPerCaller != null ? maxBufferedBodiesPerCaller
				: DataSize.ofBytes(bufferedBodiesLimit().toBytes() / 2);
	}

}
