package dev.mcprelay.proxy;

import java.util.Locale;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

import dev.mcprelay.transport.UpstreamResponse;

/**
 * What the head of an upstream's answer says of its body, as {@link ResponseRelay} decides by it: the body's
 * {@code Content-Type} and its {@code Content-Encoding} (the relay asks for no compression and decodes none, so an
 * encoded body is one it cannot read).
 * <ul>
 * <li>A 2xx answer to a POST that held requests is readable only as {@code application/json} or
 * {@code text/event-stream}, unencoded: MCP answers requests with nothing else ({@link #readable()}).</li>
 * <li>A non-2xx body is a <em>page</em> (an HTML or plain-text error page, any {@code text/*} type but an event stream
 * or JSON, unencoded), which holds no JSON-RPC a client reads and is relayed as it streams, or else may hold answers
 * (JSON of any kind, {@code +json}, {@code json-rpc}, an event stream, no type, an encoded body, anything else) and
 * is read ({@link #page()}).</li>
 * </ul>
 *
 * @param type the parsed {@code Content-Type}, or {@code null} when there is none or it does not parse
 * @param rawType the {@code Content-Type} as it came, or {@code null}
 * @param encoding the {@code Content-Encoding} other than {@code identity}, or {@code null}
 */
record UpstreamBodyType(MediaType type, String rawType, String encoding) {

	/** The longest part of a header value a message or log line repeats. */
	private static final int MAX_TOLD = 100;

	static UpstreamBodyType of(UpstreamResponse response) {
		io.netty.handler.codec.http.HttpHeaders headers = response.wireHeaders();
		String encoding = headers.get(HttpHeaders.CONTENT_ENCODING);
		boolean encoded = encoding != null && !encoding.isBlank() && !"identity".equalsIgnoreCase(encoding.strip());
		return new UpstreamBodyType(response.contentType(), headers.get(HttpHeaders.CONTENT_TYPE),
				encoded ? encoding : null);
	}

	/** Whether the body is encoded ({@code gzip}, {@code br}, ...): the relay cannot read it. */
	boolean encoded() {
		return encoding != null;
	}

	/**
	 * Whether the type is an event stream's (however it is encoded): that type exactly, parameters aside; a wildcard
	 * ({@code *}{@code /*}, {@code text/*}) names no type and is not one.
	 */
	boolean isEventStream() {
		return type != null && MediaType.TEXT_EVENT_STREAM.equalsTypeAndSubtype(type);
	}

	/** Whether the type is {@code application/json}'s exactly, parameters aside (however it is encoded). */
	boolean isJson() {
		return type != null && MediaType.APPLICATION_JSON.equalsTypeAndSubtype(type);
	}

	/** Whether a 2xx answer to requests is one the relay reads: JSON or an event stream, unencoded. */
	boolean readable() {
		return !encoded() && (isJson() || isEventStream());
	}

	/**
	 * Whether the body is an error page that holds no JSON-RPC a client would read: a {@code text/*} type other than an
	 * event stream or one naming JSON, unencoded. Any other non-2xx body may hold answers and is read.
	 */
	boolean page() {
		if (encoded() || type == null || type.isWildcardType() || type.isWildcardSubtype() || isEventStream()) {
			return false;
		}
		return "text".equals(type.getType()) && !type.getSubtype().toLowerCase(Locale.ROOT).contains("json");
	}

	/**
	 * The head as a client's error message and a log line may name it, never the body: {@code Content-Encoding 'gzip'},
	 * {@code Content-Type 'application/json-rpc'} or {@code no Content-Type}; cut, printable ASCII only.
	 */
	String describe() {
		if (encoded()) {
			return "Content-Encoding '" + printable(encoding) + "', which the relay does not decode";
		}
		return rawType == null || rawType.isBlank() ? "no Content-Type" : "Content-Type '" + printable(rawType) + "'";
	}

	private static String printable(String value) {
		StringBuilder told = new StringBuilder();
		for (int i = 0; i < value.length() && told.length() < MAX_TOLD; i++) {
			char c = value.charAt(i);
			told.append(c >= 0x20 && c < 0x7f && c != '\'' ? c : '?');
		}
		return value.length() > MAX_TOLD ? told + "..." : told.toString();
	}

}
