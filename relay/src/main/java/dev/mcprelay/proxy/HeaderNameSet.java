package dev.mcprelay.proxy;

import java.util.Collection;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * A set of header names, compared without regard to case and without lower-casing (or otherwise copying) the name
 * looked up: Netty's case-insensitive header hashing does the work. Built once for the fixed rules, or per request
 * for the names a {@code Connection} header lists.
 */
public final class HeaderNameSet {

	static final HeaderNameSet EMPTY = new HeaderNameSet(DefaultHttpHeadersFactory.headersFactory().newEmptyHeaders());

	private static final DefaultHttpHeadersFactory UNVALIDATED = DefaultHttpHeadersFactory.headersFactory()
		.withValidation(false);

	private final HttpHeaders names;

	private HeaderNameSet(HttpHeaders names) {
		this.names = names;
	}

	public static HeaderNameSet of(Collection<? extends CharSequence> names) {
		HttpHeaders set = UNVALIDATED.newHeaders();
		for (CharSequence name : names) {
			set.set(name, "");
		}
		return new HeaderNameSet(set);
	}

	public boolean contains(CharSequence name) {
		return names.contains(name);
	}

}
