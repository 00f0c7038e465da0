package dev.mcprelay.jsonrpc;

/**
 * Strict UTF-8 well-formedness (Unicode 15, table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF, no
 * truncated sequence. JSON parsers are lenient here (Jackson decodes an overlong {@code C1 AE} as a character), and a
 * relay whose parser reads one text while the upstream reads another would police the wrong message; so a client's
 * body that is not well-formed UTF-8 is refused before it is parsed.
 *
 * @see <a href="https://www.unicode.org/versions/Unicode15.0.0/ch03.pdf">Unicode 15, section 3.9, table 3-7</a>
 */
public final class Utf8 {

	private Utf8() {
	}

	/** Whether {@code bytes} is well-formed UTF-8. ASCII runs cost one comparison per byte. */
	public static boolean isWellFormed(byte[] bytes) {
		return isWellFormed(bytes, 0, bytes.length);
	}

	/** Whether {@code bytes[offset, offset + count)} is well-formed UTF-8. */
	public static boolean isWellFormed(byte[] bytes, int offset, int count) {
		int i = offset;
		int length = offset + count;
		while (i < length) {
			int b = bytes[i] & 0xFF;
			if (b < 0x80) {
				i++;
				continue;
			}
			int needed;
			int min = 0x80;
			int max = 0xBF;
			if (b >= 0xC2 && b <= 0xDF) {
				needed = 1;
			}
			else if (b >= 0xE0 && b <= 0xEF) {
				needed = 2;
				if (b == 0xE0) {
					min = 0xA0; // no overlong three-byte form
				}
				else if (b == 0xED) {
					max = 0x9F; // no surrogates
				}
			}
			else if (b >= 0xF0 && b <= 0xF4) {
				needed = 3;
				if (b == 0xF0) {
					min = 0x90; // no overlong four-byte form
				}
				else if (b == 0xF4) {
					max = 0x8F; // nothing above U+10FFFF
				}
			}
			else {
				return false; // C0, C1, F5..FF, or a stray continuation byte
			}
			if (i + needed >= length) {
				return false; // truncated
			}
			int second = bytes[i + 1] & 0xFF;
			if (second < min || second > max) {
				return false;
			}
			for (int k = 2; k <= needed; k++) {
				int next = bytes[i + k] & 0xFF;
				if (next < 0x80 || next > 0xBF) {
					return false;
				}
			}
			i += needed + 1;
		}
		return true;
	}

}
