package dev.mcprelay.sse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Accumulates the fields of the event an {@link SseEventSplitter} is reading, line by line. Field names are matched as
 * bytes; the one {@code data:} line of an event is kept as a span of its bytes in the splitter's buffer, decoded only if
 * asked for ({@link SseEvent#data()}), so the splitter tells it when it moves that buffer ({@link #moved}). Unknown
 * fields and comments are ignored here and stay in the event's raw bytes. One instance per splitter, same thread.
 */
final class SseEventFields {

	private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] ID = "id".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] EVENT = "event".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] RETRY = "retry".getBytes(StandardCharsets.US_ASCII);

	private String id;

	private String event;

	/** Where the first data line's value lies in the splitter's buffer; {@code -1}: no data line yet. */
	private int dataStart = -1;

	private int dataEnd;

	/** The data lines joined, once there is a second one. */
	private StringBuilder data;

	private String retry;

	void line(byte[] bytes, int start, int end) {
		if (bytes[start] == ':') {
			return;
		}
		int colon = start;
		while (colon < end && bytes[colon] != ':') {
			colon++;
		}
		int valueStart = colon < end ? colon + 1 : end;
		if (valueStart < end && bytes[valueStart] == ' ') {
			valueStart++;
		}
		if (is(DATA, bytes, start, colon)) {
			if (dataStart < 0 && data == null) {
				dataStart = valueStart;
				dataEnd = end;
				return;
			}
			if (data == null) {
				data = new StringBuilder(new String(bytes, dataStart, dataEnd - dataStart, StandardCharsets.UTF_8));
				dataStart = -1;
			}
			data.append('\n').append(new String(bytes, valueStart, end - valueStart, StandardCharsets.UTF_8));
		}
		else if (is(ID, bytes, start, colon)) {
			String value = new String(bytes, valueStart, end - valueStart, StandardCharsets.UTF_8);
			if (value.indexOf('\0') < 0) {
				id = value;
			}
		}
		else if (is(EVENT, bytes, start, colon)) {
			event = new String(bytes, valueStart, end - valueStart, StandardCharsets.UTF_8);
		}
		else if (is(RETRY, bytes, start, colon)) {
			retry = new String(bytes, valueStart, end - valueStart, StandardCharsets.UTF_8);
		}
		// Unknown fields are ignored, as an SSE client would; they stay in the raw bytes.
	}

	private static boolean is(byte[] field, byte[] bytes, int start, int end) {
		return Arrays.equals(field, 0, field.length, bytes, start, end);
	}

	/** The splitter moved its buffer {@code by} bytes towards its start. */
	void moved(int by) {
		if (dataStart >= 0) {
			dataStart -= by;
			dataEnd -= by;
		}
	}

	/** The event read, whose raw bytes were copied from the splitter's buffer at {@code rawStart}. */
	SseEvent build(byte[] raw, int rawStart) {
		SseEvent built = dataStart >= 0
				? new SseEvent(raw, id, event, dataStart - rawStart, dataEnd - dataStart, retry)
				: new SseEvent(raw, id, event, data == null ? null : data.toString(), retry);
		id = null;
		event = null;
		dataStart = -1;
		data = null;
		retry = null;
		return built;
	}

}
