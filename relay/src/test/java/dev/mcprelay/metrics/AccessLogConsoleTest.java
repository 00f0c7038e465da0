package dev.mcprelay.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;

/**
 * The access log's console writes leave the logging thread only where Spring Boot's console is the whole logging
 * configuration, and then every line arrives, whole, in order, many to a write of at most one pipe buffer; a full
 * queue drops lines without blocking the logging thread, and stopping writes what is queued.
 */
class AccessLogConsoleTest {

	@Test
	void bootsConsoleAloneGetsTheBatchingAppenderAndEveryLineArrivesWholeAndInOrder() {
		LoggerContext context = bootsDefault();
		RecordingConsole console = new RecordingConsole();

		BatchingConsoleAppender batching = AccessLogConsole.install(context, console);
		Logger access = context.getLogger(AccessLogConsole.ACCESS_LOGGER);
		for (int i = 0; i < 5000; i++) {
			access.info("server=acme line={} {}", i, "x".repeat(i % 300));
		}
		AccessLogConsole.uninstall(context, batching);

		assertThat(batching).isNotNull();
		List<String> lines = console.text().lines().toList();
		assertThat(lines).hasSize(5000);
		for (int i = 0; i < 5000; i++) {
			assertThat(lines.get(i)).isEqualTo("INFO mcp.relay.access server=acme line=" + i + " " + "x".repeat(i % 300));
		}
		assertThat(console.writes).as("many lines to a write").hasSizeLessThan(1000);
		assertThat(console.writes).allSatisfy(write -> {
			assertThat(write.length).isLessThanOrEqualTo(BatchingConsoleAppender.MAX_WRITE);
			assertThat(write[write.length - 1]).as("a write ends with a whole line").isEqualTo((byte) '\n');
		});
		assertThat(access.isAdditive()).as("given back to the root's console on stop").isTrue();
	}

	@Test
	void aLineLongerThanOneWriteGoesAloneAndWhole() {
		LoggerContext context = bootsDefault();
		RecordingConsole console = new RecordingConsole();

		BatchingConsoleAppender batching = AccessLogConsole.install(context, console);
		Logger access = context.getLogger(AccessLogConsole.ACCESS_LOGGER);
		access.info("before");
		access.info("long={}", "y".repeat(3 * BatchingConsoleAppender.MAX_WRITE));
		access.info("after");
		AccessLogConsole.uninstall(context, batching);

		assertThat(console.text().lines().toList()).containsExactly("INFO mcp.relay.access before",
				"INFO mcp.relay.access long=" + "y".repeat(3 * BatchingConsoleAppender.MAX_WRITE),
				"INFO mcp.relay.access after");
		assertThat(console.writes).as("the long line in a write of its own").anySatisfy(write -> assertThat(
				new String(write, StandardCharsets.UTF_8)).startsWith("INFO mcp.relay.access long=").endsWith("y\n"));
	}

	@Test
	void anyOtherConfigurationIsLeftAsItIs() {
		LoggerContext withFile = bootsDefault();
		FileAppender<ILoggingEvent> file = new FileAppender<>();
		file.setName("FILE");
		withFile.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(file);
		LoggerContext ownAccessLogger = bootsDefault();
		ownAccessLogger.getLogger(AccessLogConsole.ACCESS_LOGGER).setAdditive(false);
		LoggerContext toStandardError = newContext();
		ConsoleAppender<ILoggingEvent> err = console(toStandardError);
		err.setTarget("System.err");
		toStandardError.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(err);

		assertThat(AccessLogConsole.install(withFile, new RecordingConsole())).isNull();
		assertThat(AccessLogConsole.install(ownAccessLogger, new RecordingConsole())).isNull();
		assertThat(AccessLogConsole.install(toStandardError, new RecordingConsole())).isNull();
		assertThat(withFile.getLogger(AccessLogConsole.ACCESS_LOGGER).iteratorForAppenders().hasNext()).isFalse();
	}

	@Test
	void aConsoleThatCannotKeepUpLosesLinesButNeverHoldsTheLoggingThread() throws InterruptedException {
		LoggerContext context = bootsDefault();
		CountDownLatch release = new CountDownLatch(1);
		RecordingConsole stuck = new RecordingConsole() {
			@Override
			public void write(byte[] bytes, int offset, int length) {
				try {
					release.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				super.write(bytes, offset, length);
			}
		};
		BatchingConsoleAppender batching = AccessLogConsole.install(context, stuck);
		Logger access = context.getLogger(AccessLogConsole.ACCESS_LOGGER);

		long start = System.nanoTime();
		for (int i = 0; i < AccessLogConsole.CAPACITY * 2; i++) {
			access.info("line {}", i);
		}
		long took = System.nanoTime() - start;
		assertThat(Duration.ofNanos(took)).as("never waits for the console").isLessThan(Duration.ofSeconds(10));
		assertThat(batching.dropped()).isPositive();
		release.countDown();
		AccessLogConsole.uninstall(context, batching);

		Awaitility.await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(stuck.text().lines().count())
			.isEqualTo(AccessLogConsole.CAPACITY * 2 - batching.dropped()));
	}

	/** A logger context as Spring Boot's default logging leaves it: the root writes to CONSOLE, System.out. */
	private static LoggerContext bootsDefault() {
		LoggerContext context = newContext();
		context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(console(context));
		return context;
	}

	private static LoggerContext newContext() {
		LoggerContext context = new LoggerContext();
		context.setMDCAdapter(new LogbackMDCAdapter());
		return context;
	}

	private static ConsoleAppender<ILoggingEvent> console(LoggerContext context) {
		PatternLayoutEncoder encoder = new PatternLayoutEncoder();
		encoder.setContext(context);
		encoder.setPattern("%level %logger %msg%n");
		encoder.start();
		ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
		console.setContext(context);
		console.setName("CONSOLE");
		console.setEncoder(encoder);
		return console;
	}

	/** Keeps every write, as made. */
	static class RecordingConsole extends OutputStream {

		final List<byte[]> writes = new ArrayList<>();

		private final ByteArrayOutputStream all = new ByteArrayOutputStream();

		@Override
		public void write(int b) {
			write(new byte[] { (byte) b }, 0, 1);
		}

		@Override
		public synchronized void write(byte[] bytes, int offset, int length) {
			byte[] copy = java.util.Arrays.copyOfRange(bytes, offset, offset + length);
			writes.add(copy);
			all.write(copy, 0, copy.length);
		}

		synchronized String text() {
			return all.toString(StandardCharsets.UTF_8);
		}

	}

}
