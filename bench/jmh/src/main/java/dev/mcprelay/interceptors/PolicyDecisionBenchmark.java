package dev.mcprelay.interceptors;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.chain.InterceptorChain;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.chain.Verdict;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PublishedCatalogues;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.proxy.UpstreamLister;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * What the policies cost one {@code tools/call}, in the JVM: bench/cost.sh's call (its body, wrk's headers, an
 * anonymous caller of security mode none) parsed, viewed and run through the tools-call-request chain of its server,
 * as the relay runs it, with the ten policies of bench/cost.sh's {@code policy_args} (none refuses the call; the
 * server's tools already known, as after the relay's first listing), and with none (the policy interceptor does not
 * apply to a server no policy governs: the chain is empty). {@code -prof gc} gives the bytes allocated per call. Each
 * iteration also prints the benchmark thread's CPU time per call ({@code cpu ns/op}), which a machine loaded by others
 * disturbs less than the time per call.
 *
 * <pre>
 * bench/jmh.sh PolicyDecision -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PolicyDecisionBenchmark {

	/** bench/tools-call.lua's body. */
	static final byte[] TOOLS_CALL = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"hello from wrk\"}}}"
		.getBytes(StandardCharsets.UTF_8);

	/** bench/cost.sh's policy_args, as they are written there. */
	static final List<String> TEN_POLICIES = List.of("deny=mcp.tool.name == \"drop_database\"",
			"deny=mcp.tool.name.startsWith(\"admin_\") && caller.kind != \"jwt\"",
			"deny=mcp.arguments.?message.orValue(\"\") == \"rm -rf /\"",
			"allow=mcp.method != \"tools/call\" || mcp.tool.name in [\"echo\", \"search\", \"get\"]",
			"deny=request.headers[?\"x-blocked\"].orValue(\"\") == \"yes\"", "deny=server.virtual == \"quarantine\"",
			"deny=mcp.direction == \"server_to_client\" && mcp.method == \"sampling/createMessage\"",
			"deny=mcp.prompt.name == \"leak_secrets\"", "deny=mcp.resource.uri.startsWith(\"file:///etc/\")",
			"allow=caller.kind == \"anonymous\" || caller.scopes.exists(s, s == \"mcp\")");

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private HttpHeaders headers;

	private InterceptorChain<ToolsCallRequest> tenPolicies;

	private InterceptorChain<ToolsCallRequest> noPolicy;

	private Verdict verdict;

	private long calls;

	private long cpuAtStart;

	@Setup(Level.Iteration)
	public void startIteration() {
		calls = 0;
		cpuAtStart = THREADS.getCurrentThreadCpuTime();
	}

	@TearDown(Level.Iteration)
	public void endIteration() {
		System.out.printf("cpu ns/op: %.1f%n", (THREADS.getCurrentThreadCpuTime() - cpuAtStart) / (double) calls);
	}

	@Setup
	public void setUp() {
		headers = new HttpHeaders();
		headers.add("Host", "127.0.0.1:8080");
		headers.add("Content-Type", "application/json");
		headers.add("Accept", "application/json, text/event-stream");
		headers.add("MCP-Protocol-Version", "2025-06-18");
		headers.add("Content-Length", String.valueOf(TOOLS_CALL.length));
		tenPolicies = chain(TEN_POLICIES);
		noPolicy = chain(List.of());
		if (tenPolicies.isEmpty() || !noPolicy.isEmpty()) {
			throw new IllegalStateException("the policy interceptor applies where it should not, or not where it should");
		}
		// the first call lists the server's tools (kept after it); every call is then decided at once
		Verdict first = tenPolicies.run(request(), TIMEOUT).block();
		if (first == null || first.kind() != Verdict.Kind.PROCEED || call(tenPolicies).kind() != Verdict.Kind.PROCEED) {
			throw new IllegalStateException("the ten policies refused the benchmark's call: " + first);
		}
	}

	@Benchmark
	public Verdict tenPolicies() {
		return call(tenPolicies);
	}

	@Benchmark
	public Verdict noPolicy() {
		return call(noPolicy);
	}

	/** One call, as the relay runs it: its context, its parsed body, its view, its server's chain. */
	private Verdict call(InterceptorChain<ToolsCallRequest> chain) {
		calls++;
		verdict = null;
		chain.run(request(), TIMEOUT).subscribe(decided -> verdict = decided);
		if (verdict == null) {
			throw new IllegalStateException("the chain did not decide at once");
		}
		return verdict;
	}

	private ToolsCallRequest request() {
		CallContext context = new CallContext("fast", SpringRequestHeaders.of(headers), Caller.ANONYMOUS);
		try {
			return new ToolsCallRequest(context, JsonRpcParser.parse(TOOLS_CALL).first().node());
		}
		catch (JsonRpcParseException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The tools-call-request chain of server {@code fast} with the policy interceptor, given {@code policies}. */
	private static InterceptorChain<ToolsCallRequest> chain(List<String> policies) {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("mcp-relay.security.mode", "none");
		properties.put("mcp-relay.servers.fast.url", "http://127.0.0.1:9/mcp");
		for (int i = 0; i < policies.size(); i++) {
			String rule = policies.get(i);
			properties.put("mcp-relay.policies[" + i + "].name", "bench-" + i);
			properties.put("mcp-relay.policies[" + i + "].servers[0]", "fast");
			properties.put("mcp-relay.policies[" + i + "]." + rule.substring(0, rule.indexOf('=')),
					rule.substring(rule.indexOf('=') + 1));
		}
		RelayProperties relay = new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("mcp-relay",
				RelayProperties.class);
		List<JsonNode> tools = List.of(tool("echo"), tool("search"), tool("get"));
		PublishedCatalogues catalogues = new PublishedCatalogues(
				(context, list) -> reactor.core.publisher.Mono.just(new UpstreamLister.Listed(tools, true)),
				relay.servers()::get);
		Policies engine = Policies.of(relay, new SimpleMeterRegistry());
		PolicyEnforcement enforcement = new PolicyEnforcement(engine, catalogues, relay, List.of());
		// as the relay compiles a server's chain per snapshot (InterceptorChains): the policy interceptor only where a
		// policy governs the server
		return new InterceptorChain<ToolsCallRequest>(Stage.TOOLS_CALL_REQUEST,
				engine.governs("fast", null) ? List.of(enforcement) : List.of());
	}

	private static JsonNode tool(String name) {
		return JsonNodeFactory.instance.objectNode().put("name", name).put("description", "a tool");
	}

}
