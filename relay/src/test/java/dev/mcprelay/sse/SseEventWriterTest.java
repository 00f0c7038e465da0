package dev.mcprelay.sse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class SseEventWriterTest {

	@Test
	void substituteKeepsIdEventAndRetryAndSplitsDataLines() {
		SseEvent original = new SseEvent(new byte[0], "7", null, "{}", "1000");

		String written = new String(SseEventWriter.substitute(original, "{\"a\":\n1}"), StandardCharsets.UTF_8);

		assertThat(written).isEqualTo("id: 7\nevent: message\nretry: 1000\ndata: {\"a\":\ndata: 1}\n\n");
	}

	@Test
	void whatItWritesSplitsBackIntoTheSameData() {
		byte[] written = SseEventWriter.message("line1\r\nline2");
		SseEvent parsed = new SseEventSplitter(1024)
			.split(org.springframework.core.io.buffer.DefaultDataBufferFactory.sharedInstance.wrap(written))
			.get(0);
		assertThat(parsed.data()).isEqualTo("line1\nline2");
		assertThat(parsed.isMessage()).isTrue();
	}

}
