package dev.mcprelay.sse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import dev.mcprelay.jsonrpc.NotificationScan;

/**
 * One Server-Sent Event as it came off the wire: its raw bytes (relayed unchanged when nothing changes the event)
 * and its decoded fields (to inspect it, or to re-emit it around a substituted payload). The data of an event with
 * one {@code data:} line, the usual MCP event, is kept as a span of the raw bytes and decoded only when asked for as
 * text: a relay that passes the event on reads those bytes where they are.
 *
 * @see <a href="https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation">HTML,
 * event stream interpretation</a>
 */
public final class SseEvent {

	private final byte[] raw;

	private final String id;

	private final String event;

	private final String retry;

	/** The data when the event had several {@code data:} lines, joined; {@code null} otherwise. */
	private String joinedData;

	/** Where one {@code data:} line's value lies in {@link #raw}; {@code dataOffset < 0}: no such span. */
	private final int dataOffset;

	private final int dataLength;

	/**
	 * @param raw the event's bytes, from its first line through the blank line that ended it
	 * @param id the last {@code id:} field, or {@code null}
	 * @param event the {@code event:} type, or {@code null} (which means {@code message})
	 * @param data the {@code data:} lines joined with {@code \n}, or {@code null} when the event has no data field
	 * @param retry the {@code retry:} field, or {@code null}
	 */
	public SseEvent(byte[] raw, String id, String event, String data, String retry) {
		this(raw, id, event, data, -1, 0, retry);
	}

	/** An event whose data is the one span {@code raw[dataOffset, dataOffset + dataLength)}. */
	SseEvent(byte[] raw, String id, String event, int dataOffset, int dataLength, String retry) {
		this(raw, id, event, null, dataOffset, dataLength, retry);
	}

	private SseEvent(byte[] raw, String id, String event, String joinedData, int dataOffset, int dataLength,
			String retry) {
		this.raw = raw;
		this.id = id;
		this.event = event;
		this.joinedData = joinedData;
		this.dataOffset = dataOffset;
		this.dataLength = dataLength;
		this.retry = retry;
	}

	/** The raw bytes of {@code events}, one after the other: what relaying them unchanged writes. */
	public static byte[] rawOf(List<SseEvent> events) {
		if (events.size() == 1) {
			return events.get(0).raw;
		}
		int length = 0;
		for (SseEvent event : events) {
			length += event.raw.length;
		}
		byte[] joined = new byte[length];
		int at = 0;
		for (SseEvent event : events) {
			System.arraycopy(event.raw, 0, joined, at, event.raw.length);
			at += event.raw.length;
		}
		return joined;
	}

	/** The event's bytes, from its first line through the blank line that ended it. */
	public byte[] raw() {
		return raw;
	}

	/** The last {@code id:} field, or {@code null}. */
	public String id() {
		return id;
	}

	/** The {@code event:} type, or {@code null} (which means {@code message}). */
	public String event() {
		return event;
	}

	/** The {@code retry:} field, or {@code null}. */
	public String retry() {
		return retry;
	}

	/** The {@code data:} lines joined with {@code \n}, or {@code null} when the event has no data field. */
	public String data() {
		if (joinedData == null && dataOffset >= 0) {
			joinedData = new String(raw, dataOffset, dataLength, StandardCharsets.UTF_8);
		}
		return joinedData;
	}

	/** {@link #data()} as UTF-8 bytes, without decoding and encoding it again when it is one span of the raw bytes. */
	public byte[] dataBytes() {
		if (dataOffset >= 0) {
			return Arrays.copyOfRange(raw, dataOffset, dataOffset + dataLength);
		}
		return joinedData == null ? null : joinedData.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Whether this event carries a message for the client to dispatch: it has non-empty data and the default type.
	 * Comments, priming events (an id with empty data) and custom event types carry no JSON-RPC message.
	 */
	public boolean isMessage() {
		boolean hasData = dataOffset >= 0 ? dataLength > 0 : joinedData != null && !joinedData.isEmpty();
		return hasData && (event == null || event.equals("message"));
	}

	/**
	 * Whether the event is only comment lines ({@code : ping}), as servers send to keep a quiet stream alive: no field
	 * at all, nothing for a client to dispatch.
	 */
	public boolean isComment() {
		return raw.length > 0 && raw[0] == ':' && id == null && event == null && retry == null && data() == null;
	}

	/** Whether the event's message is a plain JSON-RPC notification ({@link NotificationScan}), read where it lies. */
	public boolean holdsPlainNotification() {
		if (dataOffset >= 0) {
			return NotificationScan.isPlainNotification(raw, dataOffset, dataLength);
		}
		return joinedData != null && NotificationScan.isPlainNotification(joinedData);
	}

}
