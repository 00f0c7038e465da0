package dev.mcprelay.sse;

import java.nio.charset.StandardCharsets;

/** Encodes SSE events the relay writes itself: errors it reports in-stream and substitutes for rejected events. */
public final class SseEventWriter {

	private SseEventWriter() {
	}

	/** A {@code message} event carrying {@code data}, split into one {@code data:} line per line. */
	public static byte[] message(String data) {
		return encode(null, "message", null, data);
	}

	/** The original event's {@code id}, {@code event} and {@code retry} fields around new data. */
	public static byte[] substitute(SseEvent original, String data) {
		return encode(original.id(), original.event() == null ? "message" : original.event(), original.retry(), data);
	}

	/**
	 * What stays of an event whose message the client must not get: only its {@code id:} field, so that the client's
	 * last event id still moves past it (an event without data is never dispatched, but its id counts); nothing at
	 * all when it had no id.
	 */
	public static byte[] idOnly(SseEvent original) {
		return original.id() == null ? new byte[0]
				: ("id: " + original.id() + "\n\n").getBytes(StandardCharsets.UTF_8);
	}

	/** The original event's {@code event} and {@code retry} fields around a new {@code id} (none when null) and data. */
	public static byte[] withId(SseEvent original, String id, String data) {
		return encode(id, original.event() == null ? "message" : original.event(), original.retry(), data);
	}

	private static byte[] encode(String id, String event, String retry, String data) {
		StringBuilder out = new StringBuilder(data.length() + 32);
		if (id != null) {
			out.append("id: ").append(id).append('\n');
		}
		out.append("event: ").append(event).append('\n');
		if (retry != null) {
			out.append("retry: ").append(retry).append('\n');
		}
		for (String line : data.split("\r\n|\r|\n", -1)) {
			out.append("data: ").append(line).append('\n');
		}
		return out.append('\n').toString().getBytes(StandardCharsets.UTF_8);
	}

}
