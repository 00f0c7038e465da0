package dev.mcprelay.metrics;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.util.Map;
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
 * and of its garbage, and the access log writes many lines a millisecond from the same two or so event loops.
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

	private final PrefixKey[] keys = new PrefixKey[KEPT];

	private final byte[][] prefixes = new byte[KEPT][];

	private int next;

	/** The line {@link #prepare} rendered last: its prefix ({@code null}: the body is the whole line) and body. */
	private byte[] preparedPrefix;

	private byte[] preparedBody;

	private static final byte[] NO_BYTES = new byte[0];

	private ConsoleLineEncoder(Encoder<ILoggingEvent> whole, Converter<ILoggingEvent> head,
			Converter<ILoggingEvent> message, Charset charset, byte[] suffix) {
		this.whole = whole;
		this.head = head;
		this.message = message;
		this.charset = charset;
		this.suffix = suffix;
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
			return preparedBody.length;
		}
		preparedPrefix = prefixOf(event);
		String text = event.getFormattedMessage();
		preparedBody = text == null ? NO_BYTES : text.getBytes(charset);
		return preparedPrefix.length + preparedBody.length + suffix.length;
	}

	/** Writes the line {@link #prepare} rendered last. */
	void writePrepared(ByteArrayOutputStream out) {
		if (preparedPrefix == null) {
			out.write(preparedBody, 0, preparedBody.length);
			return;
		}
		out.write(preparedPrefix, 0, preparedPrefix.length);
		out.write(preparedBody, 0, preparedBody.length);
		out.write(suffix, 0, suffix.length);
	}

	/** The rendered converters before the message: kept, or rendered now and kept in place of the oldest. */
	private byte[] prefixOf(ILoggingEvent event) {
		PrefixKey key = new PrefixKey(event.getTimeStamp(), event.getLevel(), event.getThreadName(),
				event.getLoggerName(), event.getMDCPropertyMap());
		for (int i = 0; i < KEPT; i++) {
			if (key.equals(keys[i])) {
				return prefixes[i];
			}
		}
		StringBuilder text = new StringBuilder(128);
		for (Converter<ILoggingEvent> c = head; c != message; c = c.getNext()) {
			c.write(text, event);
		}
		byte[] prefix = text.toString().getBytes(charset);
		keys[next] = key;
		prefixes[next] = prefix;
		next = (next + 1) % KEPT;
		return prefix;
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

	/** What the prefix of a line depends on (a record's equality: the level by identity, the rest by value). */
	private record PrefixKey(long millis, Level level, String thread, String logger, Map<String, String> mdc) {
	}

}
