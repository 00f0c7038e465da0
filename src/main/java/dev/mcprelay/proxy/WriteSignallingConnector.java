package dev.mcprelay.proxy;

import java.net.URI;
import java.util.function.Function;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpResponse;

import reactor.core.publisher.Mono;

/**
 * A {@link ClientHttpConnector} that tells a request when it has been written: once the request's headers and body
 * are on the upstream connection, it runs the {@link Runnable} the request carries in its {@link #WRITTEN} attribute
 * (WebClient copies request attributes onto the connector's request). Requests without the attribute are untouched.
 * {@link SessionOrder} uses it to let the next request of a session go upstream only after this one.
 */
public final class WriteSignallingConnector implements ClientHttpConnector {

	/** The request attribute holding the {@link Runnable} to run once the request is written. */
	public static final String WRITTEN = WriteSignallingConnector.class.getName() + ".written";

	private final ClientHttpConnector delegate;

	public WriteSignallingConnector(ClientHttpConnector delegate) {
		this.delegate = delegate;
	}

	@Override
	public Mono<ClientHttpResponse> connect(HttpMethod method, URI uri,
			Function<? super ClientHttpRequest, Mono<Void>> requestCallback) {
		return delegate.connect(method, uri, request -> requestCallback.apply(request).doOnSuccess(written -> {
			if (request.getAttributes().get(WRITTEN) instanceof Runnable onWritten) {
				onWritten.run();
			}
		}));
	}

}
