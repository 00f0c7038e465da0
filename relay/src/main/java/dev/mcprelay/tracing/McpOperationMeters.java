package dev.mcprelay.tracing;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.springframework.stereotype.Component;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.metrics.RpcMethodTag;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * The conventions' operation histograms, beside the relay's own meters (which keep their names):
 * {@code mcp.server.operation.duration} (a client message, from its arrival until its answer or acknowledgement was
 * sent) and {@code mcp.client.operation.duration} (a message the relay sent upstream, until the upstream's answer or
 * acknowledgement came), in seconds, with the conventions' bucket boundaries. Every tag value comes from a bounded
 * set: the client methods MCP defines (the relay's {@code rpc_method} tag's), JSON-RPC error codes MCP and JSON-RPC define, the relay's failure reasons, protocol
 * versions MCP published, tool and prompt names the server itself listed ({@link BoundedNames}); anything else is
 * {@value McpAttributes#OTHER}, and an attribute that does not apply is {@code ""} (Prometheus needs every series of
 * a meter to have the same labels). Series are registered once and kept.
 */
@Component
public class McpOperationMeters {

	public static final String SERVER_DURATION = "mcp.server.operation.duration";

	public static final String CLIENT_DURATION = "mcp.client.operation.duration";

	/** The conventions' {@code ExplicitBucketBoundaries}, in seconds. */
	private static final double[] BOUNDARIES = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300 };

	private static final Duration[] BUCKETS = buckets();

	private static final Set<String> VERSIONS = Set.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25",
			"2026-07-28");

	/** One series' tag values. */
	record Key(String method, String errorType, String toolName, String promptName, String protocolVersion,
			String server, String virtualServer) {
	}

	private final MeterRegistry registry;

	private final BoundedNames names = new BoundedNames();

	private final Map<Key, Timer> server = new ConcurrentHashMap<>();

	private final Map<Key, Timer> client = new ConcurrentHashMap<>();

	McpOperationMeters(MeterRegistry registry) {
		this.registry = registry;
	}

	void recordServer(MessageTrace.Facts facts, String errorType, long nanos) {
		server.computeIfAbsent(key(facts, errorType), key -> register(SERVER_DURATION,
				"An MCP message from a client, from its arrival until its answer or acknowledgement was sent", key))
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	void recordClient(MessageTrace.Facts facts, String errorType, long nanos) {
		client.computeIfAbsent(key(facts, errorType), key -> register(CLIENT_DURATION,
				"An MCP message the relay sent upstream, until the upstream's answer or acknowledgement came", key))
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * The server answered {@code method} with {@code answer}, a result: a {@code tools/list} or {@code prompts/list}
	 * admits the names it lists as tag values. Reads the answer's tree only for those two methods.
	 */
	void listed(String server, String method, JsonRpcMessage answer) {
		String kind = "tools/list".equals(method) ? "tools" : "prompts/list".equals(method) ? "prompts" : null;
		if (kind != null && answer.node().path("result").path(kind).isArray()) {
			names.admit(server, kind, answer.node().path("result").path(kind));
		}
	}

	private Key key(MessageTrace.Facts facts, String errorType) {
		String method = RpcMethodTag.isClientMethod(facts.method()) ? facts.method() : McpAttributes.OTHER;
		String version = facts.protocolVersion() == null ? ""
				: VERSIONS.contains(facts.protocolVersion()) ? facts.protocolVersion() : McpAttributes.OTHER;
		return new Key(method, errorTypeTag(errorType), names.tagValue(facts.server(), "tools", facts.toolName()),
				names.tagValue(facts.server(), "prompts", facts.promptName()), version, facts.server(),
				facts.virtualServer() == null ? "none" : facts.virtualServer());
	}

	/**
	 * A JSON-RPC error code as it is when JSON-RPC reserves it (-32768 to -32000: MCP's and JSON-RPC's own), else
	 * {@value McpAttributes#OTHER}; a word (the relay's failure reasons, {@code tool_error}) as it is.
	 */
	static String errorTypeTag(String errorType) {
		if (errorType == null) {
			return "";
		}
		if (!MessageTrace.isErrorCode(errorType)) {
			return errorType;
		}
		try {
			long code = Long.parseLong(errorType);
			return code >= -32768 && code <= -32000 ? errorType : McpAttributes.OTHER;
		}
		catch (NumberFormatException ex) {
			return McpAttributes.OTHER;
		}
	}

	private Timer register(String name, String description, Key key) {
		return Timer.builder(name)
			.description(description)
			.tags(Tags.of(McpAttributes.METHOD_NAME, key.method(), McpAttributes.ERROR_TYPE, key.errorType(),
					McpAttributes.TOOL_NAME, key.toolName(), McpAttributes.PROMPT_NAME, key.promptName(),
					McpAttributes.PROTOCOL_VERSION, key.protocolVersion(), McpAttributes.NETWORK_TRANSPORT, "tcp",
					McpAttributes.NETWORK_PROTOCOL_NAME, "http", "server", key.server(), "virtual_server",
					key.virtualServer()))
			.serviceLevelObjectives(BUCKETS)
			.register(registry);
	}

	private static Duration[] buckets() {
		Duration[] buckets = new Duration[BOUNDARIES.length];
		for (int i = 0; i < BOUNDARIES.length; i++) {
			buckets[i] = Duration.ofNanos((long) (BOUNDARIES[i] * 1_000_000_000L));
		}
		return buckets;
	}

}
