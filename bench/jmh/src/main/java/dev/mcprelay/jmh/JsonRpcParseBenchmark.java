package dev.mcprelay.jmh;

import java.nio.charset.StandardCharsets;
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

import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcScanner;

/**
 * Reading JSON-RPC envelopes as the relay does: a client's POST body into a tree ({@code parse}), an upstream's
 * answer or SSE event by a validating scan that builds no tree ({@code scan}), beside the tree parse it replaced.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class JsonRpcParseBenchmark {

	public static final byte[] TOOLS_CALL = ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"search_issues\","
			+ "\"arguments\":{\"query\":\"is:open label:bug\",\"limit\":20},\"_meta\":{\"progressToken\":\"t-7\"}}}")
		.getBytes(StandardCharsets.UTF_8);

	public static final byte[] TOOLS_LIST = toolsList(40);

	public static final byte[] TOOLS_CALL_ANSWER = ("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\","
			+ "\"text\":\"3 open issues labelled bug: #12 crash on start, #15 slow search, #21 wrong totals\"}],"
			+ "\"isError\":false}}")
		.getBytes(StandardCharsets.UTF_8);

	static byte[] toolsList(int tools) {
		StringBuilder text = new StringBuilder("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[");
		for (int i = 0; i < tools; i++) {
			text.append(i == 0 ? "" : ",")
				.append("{\"name\":\"tool_").append(i)
				.append("\",\"description\":\"Does thing number ").append(i)
				.append(" for the user\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"},")
				.append("\"limit\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"query\"]}}");
		}
		return text.append("]}}").toString().getBytes(StandardCharsets.UTF_8);
	}

	@Benchmark
	public Object parseToolsCallRequest() throws JsonRpcParseException {
		return JsonRpcParser.parse(TOOLS_CALL);
	}

	@Benchmark
	public Object parseToolsListResponseOf40Tools() throws JsonRpcParseException {
		return JsonRpcParser.parse(TOOLS_LIST);
	}

	@Benchmark
	public Object parseToolsCallAnswer() throws JsonRpcParseException {
		return JsonRpcParser.parse(TOOLS_CALL_ANSWER);
	}

	@Benchmark
	public Object scanToolsCallAnswer() throws JsonRpcParseException {
		return JsonRpcScanner.scan(TOOLS_CALL_ANSWER);
	}

	@Benchmark
	public Object scanToolsListResponseOf40Tools() throws JsonRpcParseException {
		return JsonRpcScanner.scan(TOOLS_LIST);
	}

}
