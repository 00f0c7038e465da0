package dev.mcprelay.virtual;

import java.util.Iterator;
import java.util.Map;

import dev.mcprelay.proxy.HeaderNameSet;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

/**
 * Copies the header lines a virtual server passes between a client and a member's relay (the client's request headers
 * to the member, the member's answer headers to the client) line by line, with none of the name sets, value lists
 * and lower-cased names a copy name by name makes. Exact where no name comes on two lines, the rule: a copy of headers
 * that repeat a name is left to the caller's name-by-name copy, which groups each name's values as Netty does.
 */
final class HeaderLines {

	private HeaderLines() {
	}

	/**
	 * Copies every line of {@code from} whose name is not in {@code skipped} to {@code to}: added when {@code add},
	 * else set (replacing what {@code to} held under that name).
	 *
	 * @return false, having copied nothing, when a name comes on more than one line of {@code from}
	 */
	static boolean copyEach(HttpHeaders from, HeaderNameSet skipped, HttpHeaders to, boolean add) {
		if (repeatsAName(from)) {
			return false;
		}
		Iterator<Map.Entry<CharSequence, CharSequence>> lines = from.iteratorCharSequence();
		while (lines.hasNext()) {
			Map.Entry<CharSequence, CharSequence> line = lines.next();
			if (skipped.contains(line.getKey())) {
				continue;
			}
			if (add) {
				to.add(line.getKey(), line.getValue());
			}
			else {
				to.set(line.getKey(), line.getValue());
			}
		}
		return true;
	}

	/** Whether a header name comes on more than one line of {@code headers} (names compared without case). */
	static boolean repeatsAName(HttpHeaders headers) {
		int size = headers.size();
		if (size < 2) {
			return false;
		}
		CharSequence[] names = new CharSequence[size];
		int count = 0;
		Iterator<Map.Entry<CharSequence, CharSequence>> lines = headers.iteratorCharSequence();
		while (lines.hasNext()) {
			CharSequence name = lines.next().getKey();
			if (count == size) {
				return true;
			}
			for (int i = 0; i < count; i++) {
				if (AsciiString.contentEqualsIgnoreCase(names[i], name)) {
					return true;
				}
			}
			names[count++] = name;
		}
		return false;
	}

}
