package dev.mcprelay.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/** Reads message events off an open event stream, as a client does, for tests of streams that stay open. */
public final class SseReader {

	/** One message event: its id ({@code null} when it has none) and its data as JSON. */
	public record Event(String id, JsonNode data) {
	}

	private SseReader() {
	}

	/**
	 * Reads {@code count} message events from {@code in} within {@code wait}, then closes it (the client drops the
	 * stream); fails when fewer arrived.
	 */
	public static List<Event> read(InputStream in, int count, Duration wait) throws InterruptedException, IOException {
		List<Event> events = new ArrayList<>();
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
				String id = null;
				StringBuilder data = new StringBuilder();
				String line;
				while (size(events) < count && (line = lines.readLine()) != null) {
					if (line.startsWith("id:")) {
						id = line.substring(3).strip();
					}
					else if (line.startsWith("data:")) {
						data.append(line.substring(5).strip());
					}
					else if (line.isEmpty() && !data.isEmpty()) {
						synchronized (events) {
							events.add(new Event(id, RawHttp.json(data.toString())));
						}
						id = null;
						data.setLength(0);
					}
				}
			}
			catch (IOException ex) {
				// the stream was dropped
			}
		});
		reader.start();
		reader.join(wait.toMillis());
		in.close();
		synchronized (events) {
			assertThat(events).as("events read").hasSizeGreaterThanOrEqualTo(count);
			return List.copyOf(events);
		}
	}

	private static int size(List<Event> events) {
		synchronized (events) {
			return events.size();
		}
	}

}
