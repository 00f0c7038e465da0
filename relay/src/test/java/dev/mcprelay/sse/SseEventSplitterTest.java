package dev.mcprelay.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

class SseEventSplitterTest {

	private static final String STREAM = ": keepalive\n\n"
			+ "id: 1\nevent: message\ndata: {\"a\":1}\n\n"
			+ "id: 2\r\nretry: 1500\r\ndata:\r\n\r\n"
			+ "event: custom\ndata: line one\ndata:line two\ndata:  indented ✓\n\n"
			+ "data: {\"jsonrpc\":\"2.0\",\rdata: \"id\":5}\r\r"
			+ "unknown: field\nid: with\0nul\ndata: x\n\n";

	@Test
	void splitsEveryKindOfEventAndDecodesItsFields() {
		List<SseEvent> events = split(STREAM.getBytes(StandardCharsets.UTF_8), Integer.MAX_VALUE);

		assertThat(events).hasSize(6);
		assertThat(events.get(0).data()).as("a comment has no data").isNull();
		assertThat(events.get(0).isMessage()).isFalse();
		assertThat(events.get(1).id()).isEqualTo("1");
		assertThat(events.get(1).data()).isEqualTo("{\"a\":1}");
		assertThat(events.get(1).isMessage()).isTrue();
		assertThat(events.get(2).id()).isEqualTo("2");
		assertThat(events.get(2).retry()).isEqualTo("1500");
		assertThat(events.get(2).data()).as("a priming event: an id and empty data").isEmpty();
		assertThat(events.get(2).isMessage()).isFalse();
		assertThat(events.get(3).event()).isEqualTo("custom");
		assertThat(events.get(3).data()).isEqualTo("line one\nline two\n indented ✓");
		assertThat(events.get(3).isMessage()).as("custom event types carry no JSON-RPC message").isFalse();
		assertThat(events.get(4).data()).as("CR line ends").isEqualTo("{\"jsonrpc\":\"2.0\",\n\"id\":5}");
		assertThat(events.get(5).id()).as("an id with NUL is ignored").isNull();
	}

	@Test
	void rawBytesOfAllEventsAreTheInputExactly() {
		byte[] input = STREAM.getBytes(StandardCharsets.UTF_8);
		assertThat(concat(split(input, Integer.MAX_VALUE))).isEqualTo(input);
	}

	@ParameterizedTest(name = "chunks of {0} byte(s)")
	@ValueSource(ints = { 1, 2, 3, 5, 7, 13, 64 })
	void sameEventsWhateverTheChunking(int chunkSize) {
		byte[] input = STREAM.getBytes(StandardCharsets.UTF_8);
		List<SseEvent> whole = split(input, Integer.MAX_VALUE);

		SseEventSplitter splitter = new SseEventSplitter(Integer.MAX_VALUE);
		List<SseEvent> chunked = new ArrayList<>();
		for (int i = 0; i < input.length; i += chunkSize) {
			chunked.addAll(feed(splitter, java.util.Arrays.copyOfRange(input, i, Math.min(input.length, i + chunkSize))));
		}

		assertThat(chunked).extracting(SseEvent::data).containsExactlyElementsOf(whole.stream().map(SseEvent::data).toList());
		assertThat(chunked).extracting(SseEvent::id).containsExactlyElementsOf(whole.stream().map(SseEvent::id).toList());
		assertThat(concat(chunked)).as("no byte lost or added at any boundary").isEqualTo(input);
	}

	@Test
	void everySplitPointOfCrLfGivesTheSameEvents() {
		byte[] input = "data: a\r\n\r\ndata: b\r\n\r\n".getBytes(StandardCharsets.UTF_8);
		for (int cut = 1; cut < input.length; cut++) {
			SseEventSplitter splitter = new SseEventSplitter(1024);
			List<SseEvent> events = new ArrayList<>(feed(splitter, java.util.Arrays.copyOfRange(input, 0, cut)));
			events.addAll(feed(splitter, java.util.Arrays.copyOfRange(input, cut, input.length)));
			assertThat(events).as("cut at %d", cut).extracting(SseEvent::data).containsExactly("a", "b");
			byte[] relayed = concat(events);
			byte[] tail = splitter.trailingLineEnds();
			byte[] all = java.util.Arrays.copyOf(relayed, relayed.length + tail.length);
			System.arraycopy(tail, 0, all, relayed.length, tail.length);
			assertThat(all).as("events plus the trailing line end are the input").isEqualTo(input);
			assertThat(splitter.pendingBytes()).isZero();
		}
	}

	@Test
	void aLeadingByteOrderMarkIsDroppedWhereverTheStreamIsCut() {
		byte[] body = ("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\nid: 2\ndata: b\n\n")
			.getBytes(StandardCharsets.UTF_8);
		byte[] input = new byte[body.length + 3];
		input[0] = (byte) 0xEF;
		input[1] = (byte) 0xBB;
		input[2] = (byte) 0xBF;
		System.arraycopy(body, 0, input, 3, body.length);
		for (int cut = 0; cut <= input.length; cut++) {
			for (int second = cut; second <= input.length; second += Math.max(1, input.length / 7)) {
				SseEventSplitter splitter = new SseEventSplitter(1024);
				List<SseEvent> events = new ArrayList<>(feed(splitter, java.util.Arrays.copyOfRange(input, 0, cut)));
				events.addAll(feed(splitter, java.util.Arrays.copyOfRange(input, cut, second)));
				events.addAll(feed(splitter, java.util.Arrays.copyOfRange(input, second, input.length)));
				assertThat(events).as("cut at %d and %d", cut, second).extracting(SseEvent::data)
					.containsExactly("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", "b");
				assertThat(events.get(0).isMessage()).as("the first event is a message, not an unknown field").isTrue();
				assertThat(concat(events)).as("the events are the stream without its byte-order mark").isEqualTo(body);
				assertThat(splitter.pendingBytes()).isZero();
			}
		}
	}

	@Test
	void aByteOrderMarkAfterTheStartIsNoByteOrderMark() {
		byte[] first = "data: a\n\n".getBytes(StandardCharsets.UTF_8);
		byte[] second = "\uFEFFdata: b\n\n".getBytes(StandardCharsets.UTF_8);
		SseEventSplitter splitter = new SseEventSplitter(1024);

		List<SseEvent> events = new ArrayList<>(feed(splitter, first));
		events.addAll(feed(splitter, second));

		assertThat(events).extracting(SseEvent::data).as("only the stream's first bytes may be a byte-order mark")
			.containsExactly("a", null);
		byte[] almost = { (byte) 0xEF, (byte) 0xBB, 'd', 'a', 't', 'a', ':', 'x', '\n', '\n' };
		assertThat(split(almost, 1024)).as("a start like a byte-order mark's, then not, is kept as it came")
			.singleElement()
			.satisfies(event -> assertThat(event.raw()).isEqualTo(almost))
			.satisfies(event -> assertThat(event.data()).isNull());
	}

	@Test
	void dataIsReadWhereItLiesOrJoinedAcrossLines() {
		String notification = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"p\":\"\u00e9\"}}";
		String request = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
		List<SseEvent> events = split(("id: 7\ndata: " + notification + "\n\ndata: " + request + "\n\n"
				+ "data: {\"jsonrpc\":\"2.0\",\ndata: \"method\":\"m\"}\n\n").getBytes(StandardCharsets.UTF_8),
				Integer.MAX_VALUE);

		assertThat(events).extracting(SseEvent::data)
			.containsExactly(notification, request, "{\"jsonrpc\":\"2.0\",\n\"method\":\"m\"}");
		assertThat(events).allSatisfy(event -> assertThat(event.dataBytes())
			.isEqualTo(event.data().getBytes(StandardCharsets.UTF_8)));
		assertThat(events).extracting(SseEvent::holdsPlainNotification).containsExactly(true, false, true);
		assertThat(events.get(0).id()).isEqualTo("7");
	}

	@Test
	void anEventLargerThanTheCapFails() {
		SseEventSplitter splitter = new SseEventSplitter(16);
		assertThatThrownBy(() -> feed(splitter, "data: 0123456789abcdef".getBytes(StandardCharsets.UTF_8)))
			.isInstanceOf(SseEventTooLargeException.class);
	}

	@Test
	void anEventLargerThanTheCapFailsAlsoWhenOneChunkCompletesIt() {
		SseEventSplitter splitter = new SseEventSplitter(16);
		assertThatThrownBy(() -> splitter.split(DefaultDataBufferFactory.sharedInstance
			.wrap("data: 1\n\ndata: 0123456789abcdef\n\ndata: 2\n\n".getBytes(StandardCharsets.UTF_8))))
			.isInstanceOf(SseEventTooLargeException.class);
	}

	@Test
	void eventsLargerThanTheWorkingBufferArriveWholeWhateverTheChunking() {
		// events beyond SCRATCH_LIMIT grow in the stream's own buffer; the others are scanned in the thread's
		StringBuilder stream = new StringBuilder();
		for (int i = 0; i < 12; i++) {
			int size = i % 3 == 0 ? SseEventSplitter.SCRATCH_LIMIT + 7919 * i : 10 + i;
			stream.append("id: ").append(i).append("\r\ndata: ").append("x".repeat(size)).append("\r\n\r\n");
		}
		byte[] input = stream.toString().getBytes(StandardCharsets.UTF_8);
		List<SseEvent> whole = split(input, Integer.MAX_VALUE);
		java.util.Random random = new java.util.Random(7);

		for (int round = 0; round < 5; round++) {
			SseEventSplitter splitter = new SseEventSplitter(Integer.MAX_VALUE);
			List<SseEvent> chunked = new ArrayList<>();
			for (int at = 0; at < input.length;) {
				int size = 1 + random.nextInt(round % 2 == 0 ? 100 * 1024 : 3000);
				chunked.addAll(feed(splitter, java.util.Arrays.copyOfRange(input, at, Math.min(input.length, at + size))));
				at += size;
			}
			assertThat(chunked).hasSize(12);
			assertThat(chunked).extracting(SseEvent::data).containsExactlyElementsOf(whole.stream().map(SseEvent::data).toList());
			assertThat(concat(chunked)).isEqualTo(concat(whole));
		}
	}

	@Test
	void aLargeEventDoesNotKeepItsBufferOnceItPassed() {
		SseEventSplitter splitter = new SseEventSplitter(1024 * 1024);
		byte[] large = ("data: " + "x".repeat(3 * SseEventSplitter.SCRATCH_LIMIT)).getBytes(StandardCharsets.UTF_8);
		for (int at = 0; at < large.length; at += 8192) {
			assertThat(feed(splitter, java.util.Arrays.copyOfRange(large, at, Math.min(large.length, at + 8192)))).isEmpty();
		}
		assertThat(splitter.capacity()).as("the event grew the stream's own buffer").isGreaterThan(SseEventSplitter.SCRATCH_LIMIT);

		assertThat(feed(splitter, "\n\ndata: small\n\n".getBytes(StandardCharsets.UTF_8))).hasSize(2);

		assertThat(splitter.capacity()).isEqualTo(SseEventSplitter.INITIAL_CAPACITY);
	}

	@Test
	void aBurstOfSmallEventsIsNotKeptByTheStream() {
		SseEventSplitter splitter = new SseEventSplitter(1024 * 1024);
		String burst = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n".repeat(1000) + "data: half";

		assertThat(feed(splitter, burst.getBytes(StandardCharsets.UTF_8))).hasSize(1000);

		assertThat(splitter.capacity()).as("only the incomplete event stays with the stream")
			.isEqualTo(SseEventSplitter.INITIAL_CAPACITY);
		assertThat(splitter.pendingBytes()).isEqualTo("data: half".length());
	}

	@Test
	void manySmallEventsInOneChunkDoNotCountAgainstTheCap() {
		String many = "data: 12345\n\n".repeat(100);
		assertThat(split(many.getBytes(StandardCharsets.UTF_8), 16)).hasSize(100);
	}

	@Test
	void anUnterminatedTailIsReportedAsPending() {
		SseEventSplitter splitter = new SseEventSplitter(1024);
		assertThat(feed(splitter, "data: a\n\ndata: half".getBytes(StandardCharsets.UTF_8))).hasSize(1);
		assertThat(splitter.pendingBytes()).isEqualTo("data: half".length());
		assertThat(splitter.trailingLineEnds()).as("an unterminated event is not a line end").isEmpty();
	}

	private static List<SseEvent> split(byte[] input, long cap) {
		return feed(new SseEventSplitter(cap), input);
	}

	private static List<SseEvent> feed(SseEventSplitter splitter, byte[] bytes) {
		DataBuffer buffer = DefaultDataBufferFactory.sharedInstance.wrap(bytes);
		return splitter.split(buffer);
	}

	private static byte[] concat(List<SseEvent> events) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		events.forEach(e -> out.writeBytes(e.raw()));
		return out.toByteArray();
	}

}
