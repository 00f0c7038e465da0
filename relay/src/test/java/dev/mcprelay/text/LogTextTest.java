package dev.mcprelay.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/** Text someone else chose cannot forge a log line or flood the log. */
class LogTextTest {

	@Test
	void lineBreaksQuotesAndControlCharactersAreEscaped() {
		assertThat(LogText.quote("who\nINFO forged\r\u2028\"x\\\u0007"))
			.isEqualTo("\"who\\nINFO forged\\r\\u2028\\\"x\\\\\\u0007\"");
		assertThat(LogText.quote(null)).isEqualTo("null");
	}

	@Test
	void longTextIsCutAndMarked() {
		assertThat(LogText.quote("a".repeat(10_000))).isEqualTo("\"" + "a".repeat(LogText.MAX_LENGTH) + "\"...");
		assertThat(LogText.json(JsonNodeFactory.instance.numberNode(new java.math.BigInteger("9".repeat(500)))))
			.hasSize(LogText.MAX_LENGTH + 3);
	}

	@Test
	void idsAndListsKeepTheirShape() {
		assertThat(LogText.json(JsonNodeFactory.instance.numberNode(7))).isEqualTo("7");
		assertThat(LogText.json(JsonNodeFactory.instance.textNode("a\nb"))).isEqualTo("\"a\\nb\"");
		assertThat(LogText.list(List.of("_tenant", "_x\ny"))).isEqualTo("[\"_tenant\", \"_x\\ny\"]");
	}

}
