package dev.mcprelay.sse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

class LineEndSearchTest {

	@Test
	void findsTheFirstLineEndAtEveryPositionAndAlignment() {
		for (byte end : new byte[] { '\n', '\r' }) {
			for (int length = 0; length < 40; length++) {
				for (int at = 0; at < length; at++) {
					byte[] bytes = new byte[length];
					Arrays.fill(bytes, (byte) 0x8A);
					bytes[at] = end;
					for (int from = 0; from <= length; from++) {
						assertThat(LineEndSearch.next(bytes, from, length)).as("%d in %d from %d", at, length, from)
							.isEqualTo(from <= at ? at : -1);
					}
				}
			}
		}
	}

	@Test
	void agreesWithAByteByByteScanOnBytesThatFoolSimplerTricks() {
		// Bytes one above and one below the line ends, 0x00, 0x80 and 0xFF are where borrow and sign tricks go wrong.
		byte[] alphabet = { '\n', '\r', 0x0B, 0x0C, 0x0E, 0x09, 0x00, (byte) 0x80, (byte) 0xFF, (byte) 0x8A, 'a' };
		Random random = new Random(42);
		for (int round = 0; round < 20_000; round++) {
			byte[] bytes = new byte[random.nextInt(50)];
			for (int i = 0; i < bytes.length; i++) {
				bytes[i] = random.nextInt(4) == 0 ? alphabet[random.nextInt(alphabet.length)] : alphabet[2 + random.nextInt(alphabet.length - 2)];
			}
			int from = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
			int to = from + random.nextInt(bytes.length - from + 1);
			assertThat(LineEndSearch.next(bytes, from, to)).isEqualTo(byteByByte(bytes, from, to));
		}
	}

	private static int byteByByte(byte[] bytes, int from, int to) {
		for (int i = from; i < to; i++) {
			if (bytes[i] == '\n' || bytes[i] == '\r') {
				return i;
			}
		}
		return -1;
	}

}
