package dev.mcprelay.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;

/**
 * A Logback appender, attached to Netty's {@code ResourceLeakDetector} logger in {@code logback-test.xml}, that
 * collects every leak report so that {@link NettyLeakCheckExtension} can fail the test class that leaked.
 */
public class NettyLeakReports extends AppenderBase<ILoggingEvent> {

	private static final List<String> REPORTS = new CopyOnWriteArrayList<>();

	@Override
	protected void append(ILoggingEvent event) {
		if (event.getFormattedMessage().contains("LEAK")) {
			REPORTS.add(event.getFormattedMessage());
		}
	}

	/** The reports collected since the last call, which clears them. */
	static List<String> drain() {
		List<String> reports = List.copyOf(REPORTS);
		REPORTS.clear();
		return reports;
	}

}
