package dev.mcprelay.transport;

import java.net.URI;
import java.util.function.BiFunction;

import org.reactivestreams.Publisher;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientResponse;

/**
 * How every transport puts one HTTP request on an upstream connection through Reactor Netty's pooled
 * {@link HttpClient}: the headers as given (they replace Reactor Netty's defaults, {@code Accept} and
 * {@code User-Agent}; a repeated header goes as repeated lines), a body written in one piece with its length (Reactor Netty would otherwise send it chunked),
 * {@code onWritten} run once headers and body are on the connection, and the response handed to the caller's reader.
 * A request the pool could give only dead connections to, so that nothing of it was written, is attempted again on a
 * new acquisition, a bounded number of times ({@link UpstreamExchange}).
 */
public final class UpstreamHttp {

	private UpstreamHttp() {
	}

	/**
	 * The exchange: completes when {@code reader}'s publisher completes, fails when the request cannot be sent or the
	 * reader fails. Nothing happens until it is subscribed; cancelling it ends the exchange.
	 *
	 * @param body the body, or {@code null} for none
	 * @param onWritten run once the request is on the connection, or {@code null}
	 * @param reader reads the response (status, headers, body) and releases its body
	 */
	public static Mono<Void> exchange(HttpClient httpClient, HttpMethod method, URI uri, HttpHeaders headers,
			byte[] body, Runnable onWritten,
			BiFunction<? super HttpClientResponse, ? super ByteBufFlux, ? extends Publisher<Void>> reader) {
		return exchange(prepare(httpClient, method, uri), headers, body, onWritten, reader);
	}

	/** {@link #exchange(HttpClient, HttpMethod, URI, HttpHeaders, byte[], Runnable, BiFunction)} through a sender of {@link #prepare}. */
	public static Mono<Void> exchange(HttpClient.RequestSender sender, HttpHeaders headers, byte[] body,
			Runnable onWritten,
			BiFunction<? super HttpClientResponse, ? super ByteBufFlux, ? extends Publisher<Void>> reader) {
		return new UpstreamExchange(sender, headers, body, onWritten, reader, 1).mono();
	}

	/**
	 * Reactor Netty's sender of {@code method} requests to {@code uri}. Making one copies the client's configuration
	 * twice ({@code request}, then {@code uri}); a sender is immutable and may send any number of requests, at once, so
	 * a caller that sends many to the same endpoint keeps it ({@link PreparedSenders}).
	 */
	public static HttpClient.RequestSender prepare(HttpClient httpClient, HttpMethod method, URI uri) {
		return httpClient.request(io.netty.handler.codec.http.HttpMethod.valueOf(method.name())).uri(uri);
	}

}
