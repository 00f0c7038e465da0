package dev.mcprelay.jmh;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import dev.mcprelay.sse.SseEventSplitter;

/** Splitting a 64 KB upstream chunk of progress events into SSE events: time per event. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SseSplitterBenchmark {

	static final int EVENTS = 256;

	private final byte[] chunk;

	public SseSplitterBenchmark() {
		StringBuilder text = new StringBuilder();
		for (int i = 0; i < EVENTS; i++) {
			text.append("event: message\nid: ").append(i)
				.append("\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":")
				.append(i)
				.append(",\"total\":256,\"message\":\"step ").append(i).append(" of the long operation\"}}\n\n");
		}
		chunk = text.toString().getBytes(StandardCharsets.UTF_8);
	}

	@Benchmark
	@OperationsPerInvocation(EVENTS)
	public Object splitAChunkOfEvents() {
		DataBuffer buffer = DefaultDataBufferFactory.sharedInstance.wrap(chunk);
		return new SseEventSplitter(1 << 20).split(buffer);
	}

}
