package dev.mcprelay.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;

/** Keeps every log line of the test JVM (message and stack trace) so tests can check what is and is not logged. */
public class CapturedLogs extends AppenderBase<ILoggingEvent> {

	private static final List<String> LINES = new CopyOnWriteArrayList<>();

	@Override
	protected void append(ILoggingEvent event) {
		String line = event.getLevel() + " " + event.getLoggerName() + " " + event.getFormattedMessage();
		if (event.getThrowableProxy() != null) {
			line += "\n" + ThrowableProxyUtil.asString(event.getThrowableProxy());
		}
		LINES.add(line);
	}

	/** What was logged after the first {@code mark} lines (a mark taken from {@code all().size()}). */
	public static List<String> since(int mark) {
		List<String> all = all();
		return all.subList(Math.min(mark, all.size()), all.size());
	}

	/** Everything logged so far in this JVM. */
	public static List<String> all() {
		return List.copyOf(LINES);
	}

}
