package dev.mcprelay.web;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

import dev.mcprelay.http.RelayExchange;

/**
 * Gives every client request on an MCP path an id, as gateways do: the client's {@code X-Request-Id} when it sent a
 * usable one (1 to {@value #MAX_LENGTH} visible ASCII characters), else one the relay makes (32 hex digits). The id is
 * the {@code request_id} of the request's access-log line, goes upstream as {@code X-Request-Id} (the upstream's logs can
 * be joined with the relay's), and comes back to the client in the response's {@code X-Request-Id}, so that a client
 * reporting a failure can name the request.
 */
final class RequestIds {

	static final String HEADER = "X-Request-Id";

	static final int MAX_LENGTH = 128;

	private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);

	private RequestIds() {
	}

	/** Gives {@code exchange} its id, before anything else reads the request. */
	static void assign(RelayExchange exchange) {
		String given = exchange.requestHeaders().get(HEADER);
		String id = usable(given) ? given : make();
		exchange.requestHeaders().set(HEADER, id);
		exchange.record().requestId(id);
		exchange.response().beforeCommit(() -> exchange.response().headers().set(HEADER, id));
	}

	private static boolean usable(String id) {
		if (id == null || id.isEmpty() || id.length() > MAX_LENGTH) {
			return false;
		}
		for (int i = 0; i < id.length(); i++) {
			char c = id.charAt(i);
			if (c <= ' ' || c >= 127) {
				return false;
			}
		}
		return true;
	}

	/** 32 random lower-case hex digits, written into one array (this runs for most requests). */
	private static String make() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		byte[] digits = new byte[32];
		hex(random.nextLong(), digits, 0);
		hex(random.nextLong(), digits, 16);
		return new String(digits, StandardCharsets.ISO_8859_1);
	}

	/** The 16 hex digits of {@code value}, leading zeros included, at {@code offset}. */
	private static void hex(long value, byte[] digits, int offset) {
		for (int i = 15; i >= 0; i--) {
			digits[offset + i] = HEX[(int) (value & 0xf)];
			value >>>= 4;
		}
	}

}
