package dev.mcprelay.virtual;

import java.net.URI;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.AbstractServerHttpRequest;
import org.springframework.http.server.reactive.SslInfo;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

import reactor.core.publisher.Flux;

/**
 * The request a virtual server makes of one member's relay, in this process: the member's path, the headers the
 * virtual server chose, and the message as bytes. Its native request is its own header map, which the relay may
 * change in place (it puts a session's own id in place of the bound one the client held).
 */
final class MemberRequest extends AbstractServerHttpRequest {

	private final HttpHeaders headers;

	private final byte[] body;

	MemberRequest(HttpMethod method, String member, HttpHeaders headers, byte[] body) {
		super(method, URI.create("http://relay.internal/mcp/" + member), "", headers);
		this.headers = headers;
		this.body = body;
	}

	@Override
	public Flux<DataBuffer> getBody() {
		return body == null ? Flux.empty() : Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
	}

	@Override
	protected MultiValueMap<String, HttpCookie> initCookies() {
		return new LinkedMultiValueMap<>();
	}

	@Override
	protected SslInfo initSslInfo() {
		return null;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> T getNativeRequest() {
		return (T) headers;
	}

}
