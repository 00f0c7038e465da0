package dev.mcprelay.sse;

/**
 * One Server-Sent Event as it came off the wire: its raw bytes (relayed unchanged when nothing changes the event)
 * and its decoded fields (to inspect it, or to re-emit it around a substituted payload).
 *
 * @param raw the event's bytes, from its first line through the blank line that ended it
 * @param id the last {@code id:} field, or {@code null}
 * @param event the {@code event:} type, or {@code null} (which means {@code message})
 * @param data the {@code data:} lines joined with {@code \n}, or {@code null} when the event has no data field
 * @param retry the {@code retry:} field, or {@code null}
 * @see <a href="https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation">HTML,
 * event stream interpretation</a>
 */
public record SseEvent(byte[] raw, String id, String event, String data, String retry) {

	/**
	 * Whether this event carries a message for the client to dispatch: it has non-empty data and the default type.
	 * Comments, priming events (an id with empty data) and custom event types carry no JSON-RPC message.
	 */
	public boolean isMessage() {
		return data != null && !data.isEmpty() && (event == null || event.equals("message"));
	}

}
