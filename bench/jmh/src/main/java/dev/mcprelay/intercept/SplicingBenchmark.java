package dev.mcprelay.intercept;

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

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * Changing a message through a view and re-encoding it, as an interceptor's change costs: injecting a tools/call
 * argument, and hiding tools from a 40-tool list (each kept tool relayed as received). Parsing is included, since
 * every view starts from a freshly parsed message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SplicingBenchmark {

	private static final CallContext CONTEXT = new CallContext("bench", RequestHeaders.empty());

	@Benchmark
	public byte[] injectAToolsCallArgument() throws JsonRpcParseException {
		ObjectNode message = JsonRpcParser.parse(dev.mcprelay.jmh.JsonRpcParseBenchmark.TOOLS_CALL).first().node();
		ToolsCallRequest call = new ToolsCallRequest(CONTEXT, message);
		call.setArgument("tenant", "blue");
		return JsonRpcErrors.toBytes(message);
	}

	@Benchmark
	public byte[] hideHalfOfA40ToolList() throws JsonRpcParseException {
		ObjectNode message = JsonRpcParser.parse(dev.mcprelay.jmh.JsonRpcParseBenchmark.TOOLS_LIST).first().node();
		ToolsListResponse list = new ToolsListResponse(CONTEXT, message, null);
		list.removeToolsIf(tool -> tool.name().hashCode() % 2 == 0);
		return JsonRpcErrors.toBytes(message);
	}

}
