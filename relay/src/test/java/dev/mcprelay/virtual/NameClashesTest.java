package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * A clash of two members' names is counted and logged once, the name as a member server chose it quoted: a CR LF in
 * it does not start a forged line in the relay's log (review 43j N-6).
 */
class NameClashesTest {

	private final Logger logger = (Logger) LoggerFactory.getLogger(NameClashes.class);

	private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	@BeforeEach
	void capture() {
		logged.start();
		logger.addAppender(logged);
	}

	@AfterEach
	void release() {
		logger.detachAppender(logged);
	}

	@Test
	void aClashIsCountedAndLoggedOnceWithTheNameQuoted() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		NameClashes clashes = new NameClashes(registry);
		String forged = "echo\r\n2026-11-28T00:00:00.000Z  INFO 1 --- [main] forged : admin key accepted";

		clashes.report("v", "tool", forged, "alpha", "beta");
		clashes.report("v", "tool", forged, "alpha", "beta");

		assertThat(logged.list).hasSize(1);
		String line = logged.list.get(0).getFormattedMessage();
		assertThat(line).doesNotContain("\r").doesNotContain("\n").contains("\"echo\\u000d\\u000a2026-11-28");
		assertThat(registry.get(RelayMeters.VIRTUAL_NAME_CLASHES).tag(RelayMeters.SERVER, "beta").counter().count())
			.isEqualTo(2);
	}

}
