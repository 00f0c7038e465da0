package dev.mcprelay.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.ansi.AnsiOutput;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.joran.spi.JoranException;

/**
 * Reusing a line's prefix changes no byte: with Spring Boot's own console configuration (its {@code defaults.xml} and
 * {@code console-appender.xml}, colours off and on) and with patterns of one's own, every line is what the console's
 * encoder writes, for events of many threads, levels, loggers, milliseconds, MDCs, messages and exceptions; patterns
 * whose prefix could depend on anything else are encoded whole.
 */
class ConsoleLineEncoderTest {

	@AfterEach
	void coloursBack() {
		AnsiOutput.setEnabled(AnsiOutput.Enabled.DETECT);
	}

	@ParameterizedTest(name = "Boot's console, colours {0}")
	@ValueSource(strings = { "NEVER", "ALWAYS" })
	void bootsConsolePatternReusesPrefixesAndWritesTheSameBytes(String colours) throws JoranException {
		AnsiOutput.setEnabled(AnsiOutput.Enabled.valueOf(colours));
		Encoder<ILoggingEvent> console = bootsConsoleEncoder();
		ConsoleLineEncoder lines = ConsoleLineEncoder.of(console);

		assertThat(lines.reusesPrefixes()).isTrue();
		assertSameLines(console, lines);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "%m%n", "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n",
			"%d %X{tenant} %X %contextName %p %c: %m%n%ex", "[%t] %replace(%logger){'\\.', '/'} %m%n",
			"[%thread] %d{HH:mm:ss.SSS} %m%n" })
	void patternsOfOnesOwnThatAllowItReusePrefixes(String pattern) {
		Encoder<ILoggingEvent> console = patternEncoder(pattern);
		ConsoleLineEncoder lines = ConsoleLineEncoder.of(console);

		assertThat(lines.reusesPrefixes()).isTrue();
		assertSameLines(console, lines);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "%-40m%n", "%.-20msg%n", "%replace(%m){'a', 'b'}%n", "%m [%t]%n", "%d{HH:mm:ss.SSSSSS} %m%n",
			"%sn %m%n", "%r %m%n", "%caller{1} %m%n", "%marker %m%n", "%kvp %m%n", "%m%n%m%n", "%t" })
	void patternsWhosePrefixCouldDependOnMoreAreEncodedWhole(String pattern) {
		Encoder<ILoggingEvent> console = patternEncoder(pattern);
		ConsoleLineEncoder lines = ConsoleLineEncoder.of(console);

		assertThat(lines.reusesPrefixes()).isFalse();
		assertSameLines(console, lines);
	}

	/** Many events, in the order a batch could hold them, each encoded by both. */
	private static void assertSameLines(Encoder<ILoggingEvent> console, ConsoleLineEncoder lines) {
		LoggerContext context = (LoggerContext) console.getContext();
		Random random = new Random(42);
		String[] threads = { "reactor-http-epoll-1", "reactor-http-epoll-2", "main", "a-thread-with-a-long-name-x",
				"thrëad-ünïcødé" };
		Level[] levels = { Level.INFO, Level.WARN, Level.ERROR, Level.DEBUG };
		Logger[] loggers = { context.getLogger("mcp.relay.access"), context.getLogger("dev.mcprelay.proxy.McpRelay") };
		List<Map<String, String>> mdcs = List.of(Map.of(), Map.of("tenant", "acme"), Map.of("tenant", "umbrella"),
				Map.of("traceId", "4bf92f3577b34da6a3ce929d0e0e4736", "spanId", "00f067aa0ba902b7"));
		String[] messages = { "server=acme id=7 status=200", "", "ünïcødé ✓ 日本", "two\nlines", "a=\"quoted\"",
				"x".repeat(5000) };
		long millis = 1_764_115_200_000L;
		for (int i = 0; i < 20_000; i++) {
			millis += random.nextInt(4) == 0 ? random.nextInt(3) : 0;
			Throwable exception = random.nextInt(50) == 0 ? new IllegalStateException("boom " + i) : null;
			LoggingEvent event = new LoggingEvent(Logger.FQCN, loggers[random.nextInt(loggers.length)],
					levels[random.nextInt(levels.length)], messages[random.nextInt(messages.length)] + " {}", exception,
					new Object[] { i });
			event.setTimeStamp(millis - (random.nextInt(10) == 0 ? 1 : 0));
			event.setThreadName(threads[random.nextInt(threads.length)]);
			event.setMDCPropertyMap(mdcs.get(random.nextInt(mdcs.size())));
			assertThat(new String(lines.encode(event), StandardCharsets.UTF_8)).as("event %d", i)
				.isEqualTo(new String(console.encode(event), StandardCharsets.UTF_8));
		}
	}

	/** The console encoder of Spring Boot's own logback configuration files, in a context of its own. */
	private static Encoder<ILoggingEvent> bootsConsoleEncoder() throws JoranException {
		LoggerContext context = new LoggerContext();
		context.putProperty("PID", "4242");
		context.putProperty("APPLICATION_NAME", "mcp-relay");
		JoranConfigurator configurator = new JoranConfigurator();
		configurator.setContext(context);
		configurator.doConfigure(new ByteArrayInputStream("""
				<configuration>
				  <include resource="org/springframework/boot/logging/logback/defaults.xml"/>
				  <include resource="org/springframework/boot/logging/logback/console-appender.xml"/>
				  <root level="INFO"><appender-ref ref="CONSOLE"/></root>
				</configuration>
				""".getBytes(StandardCharsets.UTF_8)));
		List<Encoder<ILoggingEvent>> encoders = new ArrayList<>();
		context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
			.iteratorForAppenders()
			.forEachRemaining(appender -> encoders.add(((ConsoleAppender<ILoggingEvent>) appender).getEncoder()));
		assertThat(encoders).hasSize(1);
		assertThat(((PatternLayoutEncoder) encoders.get(0)).getPattern()).as("Boot's pattern, with its colours")
			.contains("%clr(");
		return encoders.get(0);
	}

	private static Encoder<ILoggingEvent> patternEncoder(String pattern) {
		LoggerContext context = new LoggerContext();
		context.setName("ctx");
		PatternLayoutEncoder encoder = new PatternLayoutEncoder();
		encoder.setContext(context);
		encoder.setPattern(pattern);
		encoder.setCharset(StandardCharsets.UTF_8);
		encoder.start();
		return encoder;
	}

}
