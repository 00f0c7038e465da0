package dev.mcprelay.transport;

import java.net.URI;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import io.netty.handler.codec.http.HttpHeaderNames;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * How every transport puts one HTTP request on an upstream connection through Reactor Netty's pooled
 * {@link HttpClient}: the headers as given (they replace Reactor Netty's defaults, {@code Accept} and
 * {@code User-Agent}; a repeated header goes as repeated lines), a body written in one piece with its length (Reactor Netty would otherwise send it chunked),
 * and {@code onWritten} run once headers and body are on the connection.
 */
public final class UpstreamHttp {

	private UpstreamHttp() {
	}

	/** The request on its way; the caller chooses how to read the response. */
	public static HttpClient.ResponseReceiver<?> send(HttpClient httpClient, HttpMethod method, URI uri,
			HttpHeaders headers, byte[] body, Runnable onWritten) {
		return send(prepare(httpClient, method, uri), headers, body, onWritten);
	}

	/**
	 * Reactor Netty's sender of {@code method} requests to {@code uri}. Making one copies the client's configuration
	 * twice ({@code request}, then {@code uri}); a sender is immutable and may send any number of requests, at once, so
	 * a caller that sends many to the same endpoint keeps it ({@link PreparedSenders}).
	 */
	public static HttpClient.RequestSender prepare(HttpClient httpClient, HttpMethod method, URI uri) {
		return httpClient.request(io.netty.handler.codec.http.HttpMethod.valueOf(method.name())).uri(uri);
	}

	/** The request on its way through a sender of {@link #prepare}; the caller chooses how to read the response. */
	public static HttpClient.ResponseReceiver<?> send(HttpClient.RequestSender sender, HttpHeaders headers,
			byte[] body, Runnable onWritten) {
		return sender.send((request, outbound) -> {
			io.netty.handler.codec.http.HttpHeaders out = request.requestHeaders();
			WireHeaders.replaceAll(out, WireHeaders.nettyOf(headers));
			Mono<Void> written;
			if (body == null) {
				written = outbound.then();
			}
			else {
				out.remove(HttpHeaderNames.TRANSFER_ENCODING);
				out.set(HttpHeaderNames.CONTENT_LENGTH, body.length);
				written = outbound.sendByteArray(Mono.just(body)).then();
			}
			return onWritten == null ? written : written.doOnSuccess(done -> onWritten.run());
		});
	}

}
