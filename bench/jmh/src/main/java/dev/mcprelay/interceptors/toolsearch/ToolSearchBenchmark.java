package dev.mcprelay.interceptors.toolsearch;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * Tool search over a generated catalogue of 2,000 tools (names like {@code create_billing_invoice}, a sentence of
 * description, three parameters): one search of a few words, the relay's {@code max-results} of 5. Sample time, so
 * JMH reports p50 and p99. Also the time to index the catalogue, paid once per catalogue change.
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ToolSearchBenchmark {

	static final int TOOLS = 2_000;

	private static final String[] VERBS = { "create", "get", "list", "update", "delete", "search", "archive", "sync",
			"export", "approve" };

	private static final String[] NOUNS = { "issue", "invoice", "customer", "repository", "calendar_event", "ticket",
			"payment", "document", "user", "deployment", "alert", "report", "message", "order", "subscription",
			"pipeline", "secret", "dashboard", "branch", "contract" };

	private static final String[] AREAS = { "billing", "github", "crm", "support", "cloud", "hr", "finance", "ops",
			"sales", "docs" };

	private final List<ObjectNode> catalogue = catalogue();

	private final ToolIndex index = new ToolIndex(catalogue);

	private final String[] queries = { "create an invoice for a customer", "search github issues",
			"delete a deployment in the cloud", "approve the finance report", "list calendar events" };

	private int next;

	@Benchmark
	@BenchmarkMode(Mode.SampleTime)
	public List<ObjectNode> search() {
		return index.search(queries[next++ % queries.length], 5);
	}

	@Benchmark
	@BenchmarkMode(Mode.AverageTime)
	@OutputTimeUnit(TimeUnit.MILLISECONDS)
	public ToolIndex indexCatalogue() {
		return new ToolIndex(catalogue);
	}

	static List<ObjectNode> catalogue() {
		Random random = new Random(42);
		List<ObjectNode> tools = new ArrayList<>();
		for (int i = 0; tools.size() < TOOLS; i++) {
			String verb = VERBS[random.nextInt(VERBS.length)];
			String noun = NOUNS[random.nextInt(NOUNS.length)];
			String area = AREAS[random.nextInt(AREAS.length)];
			String name = verb + "_" + area + "_" + noun + "_" + i;
			ObjectNode tool = JsonRpcParser.mapper().createObjectNode().put("name", name)
				.put("description", Character.toUpperCase(verb.charAt(0)) + verb.substring(1) + " a "
						+ noun.replace('_', ' ') + " in " + area + ", with its owner, status and history");
			ObjectNode properties = tool.putObject("inputSchema").put("type", "object").putObject("properties");
			properties.putObject(noun + "Id").put("type", "string");
			properties.putObject("workspace").put("type", "string");
			properties.putObject("limit").put("type", "integer");
			tools.add(tool);
		}
		return tools;
	}

}
