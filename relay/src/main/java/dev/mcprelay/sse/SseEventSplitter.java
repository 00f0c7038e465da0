package dev.mcprelay.sse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.springframework.core.io.buffer.DataBuffer;

/**
 * Cuts a byte stream into {@link SseEvent}s at blank lines, accepting {@code \r\n}, {@code \n} and {@code \r} line
 * ends split anywhere across chunks. A chunk is scanned in a working buffer of the thread's; the stream keeps only
 * the bytes of the event being read, in a buffer given back once a large event has passed. An event larger than the
 * cap fails with {@link SseEventTooLargeException}, whether it completes within one chunk or
 * is still incomplete when its bytes pass the cap. Stateful: one instance per stream, fed from one thread at a time.
 *
 * <p>A UTF-8 byte-order mark at the very start of the stream (whole or split across chunks) is dropped, as the SSE
 * specification prescribes ("one leading U+FEFF BYTE ORDER MARK character must be ignored"), so that the first event
 * is read as the event it is, not as an unknown field; a byte-order mark anywhere else is data.
 *
 * <p>The concatenated {@code raw} bytes of the events emitted equal the input, after its leading byte-order mark if
 * it had one, up to the end of the last complete event: nothing else is dropped or reordered.
 *
 * @see <a href="https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream">SSE: parsing
 * an event stream</a>
 */
public final class SseEventSplitter {

	private final long maxEventBytes;

	/** What a stream's own buffer starts at. */
	static final int INITIAL_CAPACITY = 256;

	/** A stream's own buffer grown past this for a large event is given back once the event has passed. */
	static final int RETAINED_CAPACITY = 16 * 1024;

	/**
	 * The largest chunk (with the incomplete event before it) scanned in the thread's working buffer; more is appended
	 * to the stream's own buffer, which grows by doubling, so that an event of many chunks is not copied over and over.
	 */
	static final int SCRATCH_LIMIT = 128 * 1024;

	/** U+FEFF in UTF-8. */
	private static final byte[] BYTE_ORDER_MARK = { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF };

	/** Per thread: where a chunk is scanned, so that a chunk never stays in the memory of a long, quiet stream. */
	private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[64 * 1024]);

	/** The bytes of the event being read (those after the last complete event), from index 0. */
	private byte[] pending = new byte[INITIAL_CAPACITY];

	private int length;

	/** Where scanning resumes: an index into the bytes of the event being read. */
	private int scanned;

	/** Start of the line being read, an index like {@link #scanned}. */
	private int lineStart;

	/** The previous byte was a {@code \r} that ended a line; a {@code \n} right after it belongs to that line end. */
	private boolean afterCr;

	private final SseEventFields fields = new SseEventFields();

	/** Whether the stream's start was read past: a leading byte-order mark is looked for only before. */
	private boolean started;

	public SseEventSplitter(long maxEventBytes) {
		this.maxEventBytes = maxEventBytes;
	}

	/** Consumes the buffer (the caller still releases it) and returns the events it completed, in order. */
	public List<SseEvent> split(DataBuffer buffer) {
		int readable = buffer.readableByteCount();
		int total = length + readable;
		// The bytes to scan: the incomplete event so far, then the chunk, from index 0 (every index kept between calls
		// is one into them). Usually in the thread's working buffer, so that only an incomplete event stays with the
		// stream; an event too large for it grows in the stream's own buffer.
		byte[] work;
		if (total <= SCRATCH_LIMIT) {
			work = scratch(total);
			System.arraycopy(pending, 0, work, 0, length);
		}
		else {
			ensureCapacity(total);
			work = pending;
		}
		buffer.read(work, length, readable);
		if (!started) {
			int bom = leadingByteOrderMark(work, total);
			if (bom < 0) {
				// only the beginning of a byte-order mark so far: kept unscanned until the stream says more
				keepIncompleteEvent(work, 0, total);
				scanned = 0;
				return List.of();
			}
			started = true;
			if (bom > 0) {
				System.arraycopy(work, bom, work, 0, total - bom);
				total -= bom;
			}
		}
		List<SseEvent> events = List.of();
		// Where the event being read starts; what comes before it is moved out once, after the loop (moving the rest
		// after every event made a chunk of many small events quadratic).
		int eventStart = 0;
		int i = scanned;
		while (i < total) {
			if (afterCr) {
				afterCr = false;
				if (work[i] == '\n') {
					lineStart = i + 1;
					i++;
					continue;
				}
			}
			int end = LineEndSearch.next(work, i, total);
			if (end < 0) {
				break;
			}
			afterCr = work[end] == '\r';
			if (end == lineStart) {
				if (end + 1 - eventStart > maxEventBytes) {
					throw new SseEventTooLargeException(maxEventBytes);
				}
				if (events.isEmpty()) {
					events = new ArrayList<>(2);
				}
				events.add(fields.build(Arrays.copyOfRange(work, eventStart, end + 1), eventStart));
				eventStart = end + 1;
			}
			else {
				fields.line(work, lineStart, end);
			}
			lineStart = end + 1;
			i = end + 1;
		}
		keepIncompleteEvent(work, eventStart, total);
		if (length > maxEventBytes) {
			throw new SseEventTooLargeException(maxEventBytes);
		}
		return events;
	}

	/** Keeps {@code work[from, to)}, the event being read, as the stream's own bytes from index 0. */
	private void keepIncompleteEvent(byte[] work, int from, int to) {
		int tail = to - from;
		if (work != pending || from > 0) {
			// One large event must not keep its buffer: a stream lives long and most of its events are small.
			if (tail > pending.length || pending.length > RETAINED_CAPACITY && tail <= INITIAL_CAPACITY) {
				byte[] kept = new byte[tail <= INITIAL_CAPACITY ? INITIAL_CAPACITY : Math.max(tail, pending.length * 2)];
				System.arraycopy(work, from, kept, 0, tail);
				pending = kept;
			}
			else {
				System.arraycopy(work, from, pending, 0, tail);
			}
		}
		length = tail;
		lineStart -= from;
		fields.moved(from);
		scanned = tail;
	}

	/**
	 * The length of the UTF-8 byte-order mark {@code bytes} start with: 3, or 0 when they start otherwise, or -1 when
	 * the {@code length} bytes there are are the beginning of one.
	 */
	private static int leadingByteOrderMark(byte[] bytes, int length) {
		for (int i = 0; i < BYTE_ORDER_MARK.length; i++) {
			if (i == length) {
				return -1;
			}
			if (bytes[i] != BYTE_ORDER_MARK[i]) {
				return 0;
			}
		}
		return BYTE_ORDER_MARK.length;
	}

	private static byte[] scratch(int needed) {
		byte[] scratch = SCRATCH.get();
		if (scratch.length < needed) {
			scratch = new byte[Math.min(SCRATCH_LIMIT, Math.max(needed, scratch.length * 2))];
			SCRATCH.set(scratch);
		}
		return scratch;
	}

	/** The size of the buffer held for the event being read. */
	int capacity() {
		return pending.length;
	}

	/** Bytes received after the last complete event that belong to an event the stream ended inside of. */
	public int pendingBytes() {
		return isOnlyLineEnds() ? 0 : length;
	}

	/**
	 * At the end of the stream: the bytes after the last event when they are only the second half of its
	 * {@code \r\n} (or stray line ends), to be relayed so the output stays byte-identical; otherwise empty.
	 */
	public byte[] trailingLineEnds() {
		return length > 0 && isOnlyLineEnds() ? Arrays.copyOf(pending, length) : new byte[0];
	}

	private boolean isOnlyLineEnds() {
		for (int i = 0; i < length; i++) {
			if (pending[i] != '\n' && pending[i] != '\r') {
				return false;
			}
		}
		return true;
	}

	private void ensureCapacity(int needed) {
		if (needed > pending.length) {
			pending = Arrays.copyOf(pending, Math.max(needed, pending.length * 2));
		}
	}

}
