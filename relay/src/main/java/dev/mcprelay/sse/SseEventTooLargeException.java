package dev.mcprelay.sse;

/** An SSE event grew past the per-event cap before its terminating blank line arrived. */
public class SseEventTooLargeException extends RuntimeException {

	private final long limit;

	public SseEventTooLargeException(long limit) {
		super("An SSE event exceeded " + limit + " bytes", null, false, false);
		this.limit = limit;
	}

	public long limit() {
		return limit;
	}

}
