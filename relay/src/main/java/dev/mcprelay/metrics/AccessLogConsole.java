package dev.mcprelay.metrics;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;

import dev.mcprelay.config.RelayProperties;

/**
 * Takes the access log's console writes off the event loops where Spring Boot's default logging would make them: when
 * the access log is on, its logger ({@code mcp.relay.access}) has no configuration of the operator's own (no appender,
 * additive), and Logback's root writes only to Boot's console ({@code CONSOLE} on {@code System.out}), the access
 * lines go to a {@link BatchingConsoleAppender} with the console's own encoder instead: the same lines on the same
 * standard output, written by one thread many at a time (each line alone cost the relay a {@code write(2)} on the
 * event loop, {@code System.out} flushing every one). Any other logging configuration (a file, a logback.xml, an
 * appender of the operator's for the access logger) is left as it is.
 *
 * <p>Runs first at start-up and stops last, after the server's graceful shutdown: the lines of the last requests are
 * written before the process ends. On stop the access logger is given back to the root's console.
 */
@Component
class AccessLogConsole implements SmartLifecycle {

	static final String ACCESS_LOGGER = "mcp.relay.access";

	static final int CAPACITY = 16_384;

	private final boolean enabled;

	private volatile BatchingConsoleAppender installed;

	AccessLogConsole(RelayProperties properties) {
		this.enabled = properties.accessLog().enabled();
	}

	@Override
	public void start() {
		if (enabled && LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
			installed = install(context, new FileOutputStream(FileDescriptor.out));
		}
	}

	/**
	 * Puts a batching appender on the access logger of {@code context} when its logging is Boot's console alone.
	 * @return the appender put in place, or {@code null} when the configuration is left as it is
	 */
	static BatchingConsoleAppender install(LoggerContext context, OutputStream console) {
		Logger access = context.getLogger(ACCESS_LOGGER);
		if (access.iteratorForAppenders().hasNext() || !access.isAdditive()) {
			return null;
		}
		List<Appender<ILoggingEvent>> rootAppenders = new ArrayList<>();
		for (Iterator<Appender<ILoggingEvent>> it = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
			.iteratorForAppenders(); it.hasNext();) {
			rootAppenders.add(it.next());
		}
		if (rootAppenders.size() != 1 || !(rootAppenders.get(0) instanceof ConsoleAppender<ILoggingEvent> boots)
				|| !"CONSOLE".equals(boots.getName()) || !"System.out".equals(boots.getTarget())
				|| boots.getEncoder() == null) {
			return null;
		}
		BatchingConsoleAppender batching = new BatchingConsoleAppender(boots.getEncoder(), console, CAPACITY);
		batching.setContext(context);
		batching.setName("MCP_RELAY_ACCESS_CONSOLE");
		batching.start();
		access.addAppender(batching);
		access.setAdditive(false);
		return batching;
	}

	/** Gives the access logger back to the root's console, then writes what is queued. */
	static void uninstall(LoggerContext context, BatchingConsoleAppender batching) {
		Logger access = context.getLogger(ACCESS_LOGGER);
		access.setAdditive(true);
		access.detachAppender(batching);
		batching.stop();
	}

	@Override
	public void stop() {
		BatchingConsoleAppender batching = installed;
		installed = null;
		if (batching != null && LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
			uninstall(context, batching);
		}
	}

	@Override
	public boolean isRunning() {
		return installed != null;
	}

	/** First to start, last to stop (after the web server's graceful shutdown). */
	@Override
	public int getPhase() {
		return Integer.MIN_VALUE + 1000;
	}

}
