package dev.mcprelay.policy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RequestHeaders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * What filtering one list costs the policies, in CPU time (not a test: run it by hand, it asserts nothing). A
 * {@code tools/list} of 504 tools, decided for a caller the way the policy interceptor decides it, under: no policy;
 * one policy; ten policies on the tool's name (the review's bench, each naming one tool); ten policies of which nine
 * do not read the item (about the caller and the method only). Prints the CPU milliseconds per list of each, the
 * median of rounds after a warm-up.
 *
 * <pre>
 * ./mvnw -B -q -o -pl relay -am test-compile
 * java -cp relay/target/test-classes:relay/target/classes:$(cat classpath.txt) dev.mcprelay.policy.PolicyListBench
 * </pre>
 */
public final class PolicyListBench {

	private static final int TOOLS = 504;

	private PolicyListBench() {
	}

	public static void main(String[] args) {
		List<JsonNode> tools = tools();
		Caller caller = Caller.token("alice", Set.of("mcp"), Map.of("groups", List.of("dev"), "sub", "alice"));
		RequestHeaders headers = RequestHeaders.of(Map.of("X-Tenant", List.of("acme"), "User-Agent", List.of("bench")));
		PolicyFacts base = new PolicyFacts(caller, "ten", null, "tools/call", false, null, null, null, null, null,
				headers);
		List<Policy> byName = new ArrayList<>();
		byName.add(policy("p1", "mcp.tool.name == \"t001\""));
		for (int i = 2; i <= 10; i++) {
			byName.add(policy("p" + i, "caller.kind == \"jwt\" && mcp.tool.name == \"t00" + i + "\""));
		}
		List<Policy> mostlyCaller = new ArrayList<>();
		mostlyCaller.add(policy("q1", "mcp.tool.name == \"t001\""));
		for (int i = 2; i <= 10; i++) {
			mostlyCaller.add(policy("q" + i, "caller.kind == \"api_key\" && caller.id == \"bot" + i + "\" "
					+ "&& mcp.method == \"tools/call\""));
		}
		report("no policy", new Policies(List.of(), meters()), base, tools);
		report("one policy", new Policies(byName.subList(0, 1), meters()), base, tools);
		report("ten policies on the tool", new Policies(byName, meters()), base, tools);
		report("ten policies, nine about the caller", new Policies(mostlyCaller, meters()), base, tools);
	}

	private static void report(String name, Policies policies, PolicyFacts base, List<JsonNode> tools) {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		int kept = 0;
		for (int i = 0; i < 2_000; i++) {
			kept += filter(policies, base, tools);
		}
		long[] rounds = new long[15];
		for (int round = 0; round < rounds.length; round++) {
			long start = threads.getCurrentThreadCpuTime();
			for (int i = 0; i < 100; i++) {
				kept += filter(policies, base, tools);
			}
			rounds[round] = (threads.getCurrentThreadCpuTime() - start) / 100;
		}
		java.util.Arrays.sort(rounds);
		System.out.printf("%-40s %8.3f ms CPU per list of %d tools (%d kept)%n", name, rounds[rounds.length / 2] / 1e6,
				TOOLS, kept % 1000);
	}

	/** The tools {@code policies} list for the caller of {@code base}, as the policy interceptor decides a list. */
	private static int filter(Policies policies, PolicyFacts base, List<JsonNode> tools) {
		PolicyListing listing = policies.listing(base);
		int kept = 0;
		for (JsonNode tool : tools) {
			if (listing.lists(base.forTool(tool))) {
				kept++;
			}
		}
		return kept;
	}

	private static List<JsonNode> tools() {
		ArrayNode tools = JsonNodeFactory.instance.arrayNode();
		for (int i = 0; i < TOOLS; i++) {
			tools.addObject().put("name", String.format("t%03d", i)).put("description", "tool number " + i)
				.putObject("annotations").put("readOnlyHint", i % 2 == 0);
		}
		List<JsonNode> list = new ArrayList<>();
		tools.forEach(list::add);
		return list;
	}

	private static Policy policy(String name, String deny) {
		try {
			return new Policy(name, Set.of("*"), true, new CelRule(PolicyEnvironment.compile(deny)), true);
		}
		catch (dev.cel.common.CelValidationException ex) {
			throw new IllegalArgumentException(deny, ex);
		}
	}

	private static PolicyMeters meters() {
		return new PolicyMeters(new SimpleMeterRegistry());
	}

}
