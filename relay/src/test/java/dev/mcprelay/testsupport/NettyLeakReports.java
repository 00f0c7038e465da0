package dev.mcprelay.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;

/**
 * A Logback appender, attached to the root logger in {@code logback-test.xml}, that collects every Netty leak
 * report and every buffer released once too often ({@code IllegalReferenceCountException}, however it was logged),
 * so that {@link NettyLeakCheckExtension} can fail the test class that did it.
 */
public class NettyLeakReports extends AppenderBase<ILoggingEvent> {

	private static final List<String> REPORTS = new CopyOnWriteArrayList<>();

	@Override
	protected void append(ILoggingEvent event) {
		if (event.getLoggerName().startsWith("io.netty.util.ResourceLeakDetector")
				&& event.getFormattedMessage().contains("LEAK")) {
			REPORTS.add(event.getFormattedMessage());
		}
		for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
			if (t.getClassName().endsWith("IllegalReferenceCountException")) {
				REPORTS.add("A buffer was released too often: " + event.getFormattedMessage() + " / " + t.getMessage());
			}
		}
	}

	/** The reports collected since the last call, which clears them. */
	static List<String> drain() {
		List<String> reports = List.copyOf(REPORTS);
		REPORTS.clear();
		return reports;
	}

}
