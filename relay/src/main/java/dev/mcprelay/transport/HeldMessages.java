package dev.mcprelay.transport;

/**
 * How much one queue of messages waiting for a client may hold, and how much it holds now: at most
 * {@code maxMessages} messages and {@code maxBytes} bytes of them, except that an empty queue always takes one message,
 * so that a message larger than the byte bound (which {@code max-buffered-body} may allow) passes when it is alone. A
 * queue asks before it holds a message ({@link #hold}) and gives the room back once its client took it
 * ({@link #release}); what a queue does with a message it may not hold is its own, said where the queue is. Safe from
 * any thread.
 */
public final class HeldMessages {

	private final int maxMessages;

	private final long maxBytes;

	/** Guarded by {@code this}. */
	private int messages;

	/** Guarded by {@code this}. */
	private long bytes;

	public HeldMessages(int maxMessages, long maxBytes) {
		if (maxMessages < 1 || maxBytes < 1) {
			throw new IllegalArgumentException("a queue must hold at least one message and one byte");
		}
		this.maxMessages = maxMessages;
		this.maxBytes = maxBytes;
	}

	/**
	 * Takes room for a message of {@code size} bytes.
	 *
	 * @return whether the queue may hold it; when not, nothing was taken
	 */
	public synchronized boolean hold(int size) {
		if (messages > 0 && (messages >= maxMessages || bytes + size > maxBytes)) {
			return false;
		}
		messages++;
		bytes += size;
		return true;
	}

	/** Gives back the room of a message of {@code size} bytes that was held and is now taken (or discarded). */
	public synchronized void release(int size) {
		messages--;
		bytes -= size;
	}

	/** Whether nothing is held now. */
	public synchronized boolean isEmpty() {
		return messages == 0;
	}

	/** How many messages are held now. */
	public synchronized int messages() {
		return messages;
	}

	/** How many bytes are held now. */
	public synchronized long bytes() {
		return bytes;
	}

	/** The bound, in words for a log line or an error message. */
	public String bound() {
		return maxMessages + " messages or " + maxBytes + " bytes";
	}

}
