package dev.mcprelay.transport;

import java.util.Iterator;
import java.util.Map;

import org.springframework.http.HttpHeaders;
import org.springframework.http.support.Netty4HeadersAdapter;

import io.netty.handler.codec.http.DefaultHttpHeaders;

/**
 * Spring {@link HttpHeaders} kept in Netty's own header type, so that headers the relay composes for an upstream
 * request reach Reactor Netty's request without being copied into another map first. Everything that reads or
 * changes them (header rules, interceptors) sees an ordinary {@link HttpHeaders}; {@link UpstreamHttp} hands
 * {@link #netty()} to the connection as it is. Names are case-insensitive and values are validated (no CR, LF or
 * other control characters) as they are set, by Netty.
 */
public final class WireHeaders extends HttpHeaders {

	private static final long serialVersionUID = 1L;

	private final transient io.netty.handler.codec.http.HttpHeaders netty;

	public WireHeaders() {
		this(new DefaultHttpHeaders());
	}

	private WireHeaders(io.netty.handler.codec.http.HttpHeaders netty) {
		super(new Netty4HeadersAdapter(netty));
		this.netty = netty;
	}

	/** A copy of {@code headers}, any kind. */
	public static WireHeaders copyOf(HttpHeaders headers) {
		if (headers instanceof WireHeaders wire) {
			return new WireHeaders(wire.netty.copy());
		}
		WireHeaders copy = new WireHeaders();
		headers.forEach((name, values) -> copy.netty.add(name, values));
		return copy;
	}

	/** Netty's headers behind this view: what goes on the wire. */
	public io.netty.handler.codec.http.HttpHeaders netty() {
		return netty;
	}

	/**
	 * Puts every header line of {@code from} on {@code to}, line by line: each name {@code from} holds replaces what
	 * {@code to} had under it, and a name {@code from} repeats stays repeated, in order (two {@code Accept} lines stay
	 * two lines). Netty's own {@code setAll} keeps only the last line of each name unless both sides happen to be
	 * Netty's default header type.
	 */
	public static void replaceAll(io.netty.handler.codec.http.HttpHeaders to,
			io.netty.handler.codec.http.HttpHeaders from) {
		Iterator<Map.Entry<CharSequence, CharSequence>> names = from.iteratorCharSequence();
		while (names.hasNext()) {
			to.remove(names.next().getKey());
		}
		Iterator<Map.Entry<CharSequence, CharSequence>> lines = from.iteratorCharSequence();
		while (lines.hasNext()) {
			Map.Entry<CharSequence, CharSequence> line = lines.next();
			to.add(line.getKey(), line.getValue());
		}
	}

	/** Netty's headers of any {@link HttpHeaders}: those behind a {@link WireHeaders}, or a copy. */
	public static io.netty.handler.codec.http.HttpHeaders nettyOf(HttpHeaders headers) {
		return headers instanceof WireHeaders wire ? wire.netty : copyOf(headers).netty;
	}

}
