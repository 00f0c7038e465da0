package dev.mcprelay.metrics;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.pattern.DateConverter;
import ch.qos.logback.classic.pattern.EnsureExceptionHandling;
import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.pattern.ThrowableHandlingConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.pattern.CompositeConverter;
import ch.qos.logback.core.pattern.Converter;
import ch.qos.logback.core.pattern.FormattingConverter;

/**
 * Encodes log events exactly as the console's pattern encoder does, rendering the part of a line before its message
 * once per millisecond, thread, level, logger and MDC instead of once per line: with Spring Boot's console pattern that
 * part (date, level, process id, application, thread, logger, each in a colour converter) is most of the layout's work
 * and of its garbage, and the access log writes many lines a millisecond from the same two or so event loops. From one
 * millisecond to the next only the date of a kept prefix is written again, when the pattern's one date stands in the
 * prefix whole ({@link DatePlace}: Boot's pattern): the converters ran for the first line of a thread, level, logger
 * and MDC, not for the first of each millisecond. An ASCII message (an access-log line) is put into the write buffer
 * from an array kept for it, not from one made per line.
 *
 * <p>It applies only to a pattern whose line is {@code <prefix>%m<suffix>} with the message written as it is (no
 * padding, no truncation, not inside another converter), a prefix made only of converters that read nothing but the
 * event's millisecond, level, thread, logger, MDC and the logging context (dates of at most millisecond precision,
 * literals, and Boot's colour, bracket and correlation converters around those), and a suffix of line separators,
 * literals and exception converters; {@link #of} returns the console's own encoder for any other. An event with an
 * exception is always rendered whole. Used by one thread at a time ({@link BatchingConsoleAppender}'s writer); a
 * failure to render is the caller's, as the console encoder's would be.
 */
final class ConsoleLineEncoder {

	/** Converters whose output depends only on what {@link PrefixKey} holds and on the context. */
	private static final Set<String> PREFIX_CONVERTERS = Set.of("ch.qos.logback.classic.pattern.DateConverter",
			"ch.qos.logback.classic.pattern.LevelConverter", "ch.qos.logback.classic.pattern.ThreadConverter",
			"ch.qos.logback.classic.pattern.LoggerConverter", "ch.qos.logback.classic.pattern.MDCConverter",
			"ch.qos.logback.classic.pattern.ContextNameConverter", "ch.qos.logback.classic.pattern.PropertyConverter",
			"ch.qos.logback.classic.pattern.LineSeparatorConverter", "ch.qos.logback.core.pattern.LiteralConverter",
			"ch.qos.logback.core.pattern.IdentityCompositeConverter", "ch.qos.logback.core.pattern.ReplacingCompositeConverter",
			"org.springframework.boot.logging.logback.ColorConverter",
			"org.springframework.boot.logging.logback.EnclosedInSquareBracketsConverter",
			"org.springframework.boot.logging.logback.CorrelationIdConverter");

	/** Prefixes kept: a few per millisecond, one per event loop that logs in it. */
	private static final int KEPT = 8;

	private final Encoder<ILoggingEvent> whole;

	private final Converter<ILoggingEvent> head;

	private final Converter<ILoggingEvent> message;

	private final Charset charset;

	private final byte[] suffix;

	/** The prefix's one date, when a kept prefix of another millisecond can be had by putting the date in. */
	private final DateConverter date;

	/** What each kept prefix was rendered for: its millisecond, and the rest of its key ({@link PrefixKey}). */
	private final long[] millis = new long[KEPT];

	private final PrefixKey[] keys = new PrefixKey[KEPT];

	private final byte[][] prefixes = new byte[KEPT][];

	/** Each kept prefix as text, and where its date is in it ({@code -1}: nowhere that is sure). */
	private final String[] texts = new String[KEPT];

	private final int[] dateStarts = new int[KEPT];

	private final int[] dateEnds = new int[KEPT];

	/**
	 * Where a kept prefix's date is in its bytes, when each of its characters up to the date's end is one byte in the
	 * charset ({@code -1}: not so), so that another millisecond's date of the same length is written over it in place.
	 */
	private final int[] dateByteStarts = new int[KEPT];

	private int next;

	/**
	 * The line {@link #prepare} rendered last: its prefix ({@code null}: the body is the whole line) and body, the first
	 * {@code preparedLength} bytes of {@code preparedBody}.
	 */
	private byte[] preparedPrefix;

	private byte[] preparedBody;

	private int preparedLength;

	/** Where an ASCII message's bytes are put, for the one thread that writes: no array per line. */
	private byte[] asciiBody = new byte[512];

	private static final byte[] NO_BYTES = new byte[0];

	/** The longest message put in {@link #asciiBody}; a longer one gets an array of its own. */
	private static final int MAX_ASCII_BODY = 16 * 1024;

	/** Whether the charset writes an ASCII character as its one byte. */
	private final boolean asciiCharset;

	private ConsoleLineEncoder(Encoder<ILoggingEvent> whole, Converter<ILoggingEvent> head,
			Converter<ILoggingEvent> message, Charset charset, byte[] suffix) {
		this.whole = whole;
		this.head = head;
		this.message = message;
		this.date = head == null ? null : DatePlace.of(head, message);
		this.charset = charset;
		this.suffix = suffix;
		this.asciiCharset = charset != null && (charset.equals(StandardCharsets.UTF_8)
				|| charset.equals(StandardCharsets.ISO_8859_1) || charset.equals(StandardCharsets.US_ASCII));
	}

	/**
	 * The lines {@code console} would write: with prefixes reused when its pattern allows it (see the class
	 * description), else each encoded by {@code console} itself.
	 */
	static ConsoleLineEncoder of(Encoder<ILoggingEvent> console) {
		if (!(console instanceof PatternLayoutEncoder patterned) || patterned.getPattern() == null
				|| patterned.getContext() == null) {
			return new ConsoleLineEncoder(console, null, null, null, null);
		}
		// The same pattern compiled again, in the same context (so with Boot's converters), to reach its converters.
		PatternLayout layout = new PatternLayout();
		layout.setContext(patterned.getContext());
		layout.setPattern(patterned.getPattern());
		List<Converter<ILoggingEvent>> compiled = new ArrayList<>(1);
		EnsureExceptionHandling exceptions = new EnsureExceptionHandling();
		layout.setPostCompileProcessor((context, head) -> {
			exceptions.process(context, head);
			compiled.add(head);
		});
		layout.start();
		Converter<ILoggingEvent> message = compiled.isEmpty() ? null : messageOf(compiled.get(0));
		if (!layout.isStarted() || message == null) {
			return new ConsoleLineEncoder(console, null, null, null, null);
		}
		Charset charset = patterned.getCharset() != null ? patterned.getCharset() : Charset.defaultCharset();
		// what the converters after the message write for any event without an exception
		StringBuilder suffix = new StringBuilder();
		LoggingEvent withoutException = new LoggingEvent();
		for (Converter<ILoggingEvent> c = message.getNext(); c != null; c = c.getNext()) {
			c.write(suffix, withoutException);
		}
		return new ConsoleLineEncoder(console, compiled.get(0), message, charset, suffix.toString().getBytes(charset));
	}

	/** Whether lines reuse prefixes (the pattern allows it), rather than each being encoded whole. */
	boolean reusesPrefixes() {
		return head != null;
	}

	/** The line of {@code event}, as the console's encoder would write it. */
	byte[] encode(ILoggingEvent event) {
		ByteArrayOutputStream line = new ByteArrayOutputStream(prepare(event));
		writePrepared(line);
		return line.toByteArray();
	}

	/**
	 * Renders the line of {@code event} ({@link #encode}'s bytes), for {@link #writePrepared} to write, and returns its
	 * length, so that the writer can make room for it first: the line goes out in its parts (the kept prefix, the
	 * message, the suffix), with no array made for the whole of it.
	 */
	int prepare(ILoggingEvent event) {
		if (head == null || event.getThrowableProxy() != null) {
			preparedPrefix = null;
			preparedBody = whole.encode(event);
			preparedLength = preparedBody.length;
			return preparedLength;
		}
		preparedPrefix = prefixOf(event);
		String text = event.getFormattedMessage();
		if (text == null) {
			preparedBody = NO_BYTES;
			preparedLength = 0;
		}
		else if (!asciiInto(text)) {
			preparedBody = text.getBytes(charset);
			preparedLength = preparedBody.length;
		}
		return preparedPrefix.length + preparedLength + suffix.length;
	}

	/**
	 * Puts {@code text} into {@link #asciiBody} as the body to write, when it is ASCII and the charset writes ASCII as
	 * itself (UTF-8, ISO-8859-1, US-ASCII): one byte per character, what {@code getBytes} would make; else leaves it
	 * and says no. An access-log line is ASCII (its values are escaped) and shorter than the array.
	 */
	private boolean asciiInto(String text) {
		if (!asciiCharset) {
			return false;
		}
		int length = text.length();
		if (length > asciiBody.length) {
			if (length > MAX_ASCII_BODY) {
				return false;
			}
			asciiBody = new byte[Math.max(length, 2 * asciiBody.length)];
		}
		byte[] body = asciiBody;
		for (int i = 0; i < length; i++) {
			char c = text.charAt(i);
			if (c >= 0x80) {
				return false;
			}
			body[i] = (byte) c;
		}
		preparedBody = body;
		preparedLength = length;
		return true;
	}

	/** Writes the line {@link #prepare} rendered last. */
	void writePrepared(ByteArrayOutputStream out) {
		if (preparedPrefix == null) {
			out.write(preparedBody, 0, preparedLength);
			return;
		}
		out.write(preparedPrefix, 0, preparedPrefix.length);
		out.write(preparedBody, 0, preparedLength);
		out.write(suffix, 0, suffix.length);
	}

	/**
	 * The rendered converters before the message: kept; else a kept one of the same thread, level, logger and MDC
	 * from another millisecond with this event's date put in place of its own (the prefix's one date converter, whose
	 * text stands in the prefix as it wrote it: {@link DatePlace}), written over the kept bytes when it is as long and
	 * one byte a character, else kept anew in its place; else rendered now and kept in place of the oldest. A line of a
	 * kept prefix allocates nothing here, and a new millisecond of one costs only its date's text: the returned array
	 * is valid until the next call, which {@link #prepare}'s caller writes before it asks for another line.
	 */
	private byte[] prefixOf(ILoggingEvent event) {
		long time = event.getTimeStamp();
		Level level = event.getLevel();
		String thread = event.getThreadName();
		String logger = event.getLoggerName();
		Map<String, String> mdc = event.getMDCPropertyMap();
		int sameButTime = -1;
		for (int i = 0; i < KEPT; i++) {
			PrefixKey kept = keys[i];
			if (kept != null && kept.sameButTime(level, thread, logger, mdc)) {
				if (millis[i] == time) {
					return prefixes[i];
				}
				if (sameButTime < 0 && dateStarts[i] >= 0) {
					sameButTime = i;
				}
			}
		}
		String text;
		int start = -1;
		int end = -1;
		int slot;
		if (sameButTime >= 0) {
			String dateText = date.convert(event);
			if (overwriteDate(sameButTime, dateText)) {
				millis[sameButTime] = time;
				return prefixes[sameButTime];
			}
			String kept = texts[sameButTime];
			start = dateStarts[sameButTime];
			end = start + dateText.length();
			text = new StringBuilder(kept.length() + dateText.length()).append(kept, 0, start)
				.append(dateText)
				.append(kept, dateEnds[sameButTime], kept.length())
				.toString();
			slot = sameButTime;
		}
		else {
			StringBuilder rendered = new StringBuilder(128);
			for (Converter<ILoggingEvent> c = head; c != message; c = c.getNext()) {
				c.write(rendered, event);
			}
			text = rendered.toString();
			if (date != null) {
				// the date's text, found once and only once, is where the date converter wrote it
				String dateText = date.convert(event);
				int at = text.indexOf(dateText);
				if (at >= 0 && text.indexOf(dateText, at + 1) < 0) {
					start = at;
					end = at + dateText.length();
				}
			}
			slot = next;
			next = (next + 1) % KEPT;
		}
		byte[] prefix = text.getBytes(charset);
		millis[slot] = time;
		keys[slot] = new PrefixKey(level, thread, logger, mdc);
		prefixes[slot] = prefix;
		texts[slot] = text;
		dateStarts[slot] = start;
		dateEnds[slot] = end;
		dateByteStarts[slot] = start >= 0 && asciiCharset && ascii(text, 0, end) ? start : -1;
		return prefix;
	}

	/**
	 * Writes {@code dateText} over the date in the kept prefix of {@code slot}, when that prefix's date is one byte a
	 * character ({@link #dateByteStarts}) and {@code dateText} is as long and ASCII; else changes nothing and says no.
	 * The prefix's text keeps its old date, which stands where the new one does, as long.
	 */
	private boolean overwriteDate(int slot, String dateText) {
		int at = dateByteStarts[slot];
		if (at < 0 || dateText.length() != dateEnds[slot] - dateStarts[slot] || !ascii(dateText, 0, dateText.length())) {
			return false;
		}
		byte[] prefix = prefixes[slot];
		for (int i = 0; i < dateText.length(); i++) {
			prefix[at + i] = (byte) dateText.charAt(i);
		}
		return true;
	}

	private static boolean ascii(String text, int from, int to) {
		for (int i = from; i < to; i++) {
			if (text.charAt(i) >= 0x80) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The one plain message converter of a chain whose prefix and suffix allow reuse (see the class description), or
	 * {@code null}.
	 */
	private static Converter<ILoggingEvent> messageOf(Converter<ILoggingEvent> head) {
		Converter<ILoggingEvent> c = head;
		while (c != null && !(c instanceof MessageConverter)) {
			if (!reusable(c)) {
				return null;
			}
			c = c.getNext();
		}
		if (c == null || c.getClass() != MessageConverter.class || ((FormattingConverter<?>) c).getFormattingInfo() != null) {
			return null;
		}
		for (Converter<ILoggingEvent> after = c.getNext(); after != null; after = after.getNext()) {
			String name = after.getClass().getName();
			if (!(after instanceof ThrowableHandlingConverter) && !name.equals("ch.qos.logback.core.pattern.LiteralConverter")
					&& !name.equals("ch.qos.logback.classic.pattern.LineSeparatorConverter")) {
				return null;
			}
		}
		return c;
	}

	/** Whether a converter before the message (and all it contains) reads only what the prefix is keyed on. */
	private static boolean reusable(Converter<ILoggingEvent> converter) {
		if (!PREFIX_CONVERTERS.contains(converter.getClass().getName())) {
			return false;
		}
		if (converter instanceof DateConverter date && !millisecondsAtMost(date.getFirstOption())) {
			return false;
		}
		if (converter instanceof CompositeConverter<ILoggingEvent> composite) {
			for (Converter<ILoggingEvent> c = composite.getChildConverter(); c != null; c = c.getNext()) {
				if (!reusable(c)) {
					return false;
				}
			}
		}
		return true;
	}

	/** Whether a date pattern (logback's default when {@code null}) shows nothing finer than milliseconds. */
	private static boolean millisecondsAtMost(String pattern) {
		return pattern == null || !(pattern.contains("SSSS") || pattern.indexOf('n') >= 0 || pattern.indexOf('N') >= 0
				|| pattern.indexOf('A') >= 0);
	}

	/**
	 * What the prefix of a line depends on besides its millisecond (kept apart, in {@link #millis}): the level by
	 * identity, the rest by value.
	 */
	private record PrefixKey(Level level, String thread, String logger, Map<String, String> mdc) {

		/** Whether a line of these has this prefix, but for its date at most. */
		boolean sameButTime(Level level, String thread, String logger, Map<String, String> mdc) {
			return this.level == level && Objects.equals(this.thread, thread) && Objects.equals(this.logger, logger)
					&& Objects.equals(this.mdc, mdc);
		}

	}

	/**
	 * Where a prefix's date is: the one {@link DateConverter} of the converters before the message, when its text
	 * stands in the prefix as it wrote it (no padding or truncation of its own, and inside nothing but composites that
	 * put their content in whole: Boot's colour and bracket converters, logback's identity one); a prefix with none,
	 * or more than one, or one inside anything else, is always rendered whole.
	 */
	private static final class DatePlace {

		private static final Set<String> WHOLE_CONTENT = Set.of("ch.qos.logback.core.pattern.IdentityCompositeConverter",
				"org.springframework.boot.logging.logback.ColorConverter",
				"org.springframework.boot.logging.logback.EnclosedInSquareBracketsConverter");

		private DateConverter found;

		private int count;

		private boolean whole = true;

		static DateConverter of(Converter<ILoggingEvent> head, Converter<ILoggingEvent> message) {
			DatePlace place = new DatePlace();
			for (Converter<ILoggingEvent> c = head; c != message; c = c.getNext()) {
				place.visit(c, true);
			}
			return place.count == 1 && place.whole ? place.found : null;
		}

		private void visit(Converter<ILoggingEvent> converter, boolean inWhole) {
			if (converter instanceof DateConverter dateConverter) {
				found = dateConverter;
				count++;
				whole &= inWhole && dateConverter.getFormattingInfo() == null;
				return;
			}
			if (converter instanceof CompositeConverter<ILoggingEvent> composite) {
				boolean keepsWhole = inWhole && composite.getFormattingInfo() == null
						&& WHOLE_CONTENT.contains(composite.getClass().getName());
				for (Converter<ILoggingEvent> c = composite.getChildConverter(); c != null; c = c.getNext()) {
					visit(c, keepsWhole);
				}
			}
		}

	}

}
