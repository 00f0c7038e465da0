package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Strict UTF-8: what Java's own strict decoder accepts, and nothing else. */
class Utf8Test {

	@ParameterizedTest(name = "well-formed: {0}")
	@ValueSource(strings = { "", "ping", "héllo", "✓ €", "𝄞 emoji 😀", "\u007f\u0080\u07ff\u0800\uffff" })
	void wellFormedTextIsAccepted(String text) {
		assertThat(Utf8.isWellFormed(text.getBytes(StandardCharsets.UTF_8))).isTrue();
	}

	@ParameterizedTest(name = "ill-formed: {0}")
	@ValueSource(strings = { "c0af", "c1ae", "e080af", "f08080af", "eda080", "edbfbf", "f4908080", "f5808080", "ff",
			"80", "bf", "c3", "e282", "f09d84", "c328", "e228a1", "70696ec1ae67" })
	void overlongSurrogateOutOfRangeStrayAndTruncatedSequencesAreRefused(String hex) {
		byte[] bytes = HexFormat.of().parseHex(hex);

		assertThat(Utf8.isWellFormed(bytes)).isFalse();
		assertThat(strictDecoderAccepts(bytes)).as("Java's strict decoder agrees").isFalse();
	}

	private static boolean strictDecoderAccepts(byte[] bytes) {
		try {
			StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes));
			return true;
		}
		catch (java.nio.charset.CharacterCodingException ex) {
			return false;
		}
	}

}
