package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;

/**
 * An event stream a live reload test holds open while it edits the configuration (a GET stream, a call streaming its
 * answer): its events read as they come, on a thread of its own, so that the test waits for an event, or for the
 * stream's end, each within a bound, and never hangs on a stream that does not end.
 */
final class OpenSse implements AutoCloseable {

	private static final long BOUND_SECONDS = 20;

	private final HttpResponse<InputStream> response;

	private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();

	private final List<JsonNode> all = new CopyOnWriteArrayList<>();

	private final CompletableFuture<Void> ended = new CompletableFuture<>();

	OpenSse(HttpResponse<InputStream> response) {
		this.response = response;
		assertThat(response.statusCode()).as("the stream's status").isEqualTo(200);
		Thread reader = new Thread(this::read, "open-sse-reader");
		reader.setDaemon(true);
		reader.start();
	}

	private void read() {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
			StringBuilder data = new StringBuilder();
			for (String line = lines.readLine(); line != null; line = lines.readLine()) {
				if (line.startsWith("data:")) {
					data.append(line.substring(5).stripLeading());
				}
				else if (line.isEmpty() && !data.isEmpty()) {
					JsonNode event = RawHttp.json(data.toString());
					data.setLength(0);
					all.add(event);
					events.add(event);
				}
			}
			ended.complete(null);
		}
		catch (IOException | RuntimeException ex) {
			ended.completeExceptionally(ex);
		}
	}

	/** The next event, within the bound. */
	JsonNode next() throws InterruptedException {
		JsonNode event = events.poll(BOUND_SECONDS, TimeUnit.SECONDS);
		assertThat(event).as("an event within %d s", BOUND_SECONDS).isNotNull();
		return event;
	}

	/** Waits, within the bound, for the server to end the stream cleanly; every event it carried. */
	List<JsonNode> awaitEnd() throws Exception {
		ended.get(BOUND_SECONDS, TimeUnit.SECONDS);
		return List.copyOf(all);
	}

	/** Every event the stream carried so far. */
	List<JsonNode> received() {
		return List.copyOf(all);
	}

	/** Whether the stream has ended. */
	boolean ended() {
		return ended.isDone();
	}

	@Override
	public void close() throws IOException {
		response.body().close();
	}

}
