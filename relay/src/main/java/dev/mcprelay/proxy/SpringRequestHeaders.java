package dev.mcprelay.proxy;

import java.util.List;
import java.util.Set;

import org.springframework.http.HttpHeaders;

import dev.mcprelay.api.RequestHeaders;

/**
 * A client request's Spring {@link HttpHeaders} as the interceptor API's {@link RequestHeaders}: a read-only view, no
 * copy; and back, for the relay's own calls that take Spring's headers.
 */
public final class SpringRequestHeaders implements RequestHeaders {

	private final HttpHeaders headers;

	private SpringRequestHeaders(HttpHeaders headers) {
		this.headers = headers;
	}

	/** {@code headers} seen through the API. */
	public static RequestHeaders of(HttpHeaders headers) {
		return new SpringRequestHeaders(headers);
	}

	/** {@code headers} as Spring's: the very headers when they are a view of Spring's, else a copy. */
	public static HttpHeaders toHttpHeaders(RequestHeaders headers) {
		if (headers instanceof SpringRequestHeaders spring) {
			return HttpHeaders.readOnlyHttpHeaders(spring.headers);
		}
		HttpHeaders copy = new HttpHeaders();
		for (String name : headers.names()) {
			copy.addAll(name, headers.get(name));
		}
		return HttpHeaders.readOnlyHttpHeaders(copy);
	}

	@Override
	public String getFirst(String name) {
		return headers.getFirst(name);
	}

	@Override
	public List<String> get(String name) {
		List<String> values = headers.get(name);
		return values == null ? List.of() : List.copyOf(values);
	}

	@Override
	public boolean containsHeader(String name) {
		return headers.containsHeader(name);
	}

	@Override
	public Set<String> names() {
		return headers.headerNames();
	}

	@Override
	public String toString() {
		return "RequestHeaders" + headers.headerNames();
	}

}
