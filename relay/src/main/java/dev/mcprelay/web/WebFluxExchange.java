package dev.mcprelay.web;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.support.Netty4HeadersAdapter;
import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.api.Caller;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.http.WebFluxResponse;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import dev.mcprelay.security.ExchangeCaller;
import dev.mcprelay.transport.WireHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Flux;
import reactor.netty.http.server.HttpServerRequest;

/**
 * A {@link RelayExchange} over WebFlux's exchange, for the MCP paths while WebFlux's web filters carry them: the
 * request's headers are Reactor Netty's own (a request that is not Reactor Netty's gets a copy, once), and the
 * decisions of the web filters before the relay (the caller and a virtual server's members, left by the front door;
 * the record, attached by the relay's observation) are read from the exchange's attributes. WebFlux cancels the
 * relay's handling when the client goes away.
 */
final class WebFluxExchange implements RelayExchange {

	private final ServerWebExchange exchange;

	private final McpRoute route;

	private final HttpHeaders requestHeaders;

	private final org.springframework.http.HttpHeaders requestHeaderView;

	private final WebFluxResponse response;

	private final ExchangeRecord record;

	WebFluxExchange(ServerWebExchange exchange, McpRoute route) {
		this.exchange = exchange;
		this.route = route;
		ServerHttpRequest request = exchange.getRequest();
		if (ServerHttpRequestDecorator.getNativeRequest(request) instanceof HttpServerRequest nettyRequest) {
			// WebFlux's headers of a Reactor Netty request are a view of Netty's.
			this.requestHeaders = nettyRequest.requestHeaders();
			this.requestHeaderView = request.getHeaders();
		}
		else {
			this.requestHeaders = WireHeaders.nettyOf(request.getHeaders());
			this.requestHeaderView = new org.springframework.http.HttpHeaders(
					new Netty4HeadersAdapter(requestHeaders));
		}
		this.response = WebFluxResponse.of(exchange.getResponse());
		this.record = ExchangeRecord.of(exchange);
	}

	@Override
	public HttpMethod method() {
		return exchange.getRequest().getMethod();
	}

	@Override
	public String rawPath() {
		return exchange.getRequest().getURI().getRawPath();
	}

	@Override
	public String rawQuery() {
		return exchange.getRequest().getURI().getRawQuery();
	}

	@Override
	public HttpHeaders requestHeaders() {
		return requestHeaders;
	}

	@Override
	public org.springframework.http.HttpHeaders requestHeaderView() {
		return requestHeaderView;
	}

	@Override
	public Flux<DataBuffer> requestBody() {
		return exchange.getRequest().getBody();
	}

	@Override
	public boolean answeredByServer() {
		return response.sentByServer();
	}

	@Override
	public RelayResponse response() {
		return response;
	}

	@Override
	public McpRoute route() {
		return route;
	}

	@Override
	public Caller caller() {
		return ExchangeCaller.of(exchange);
	}

	@Override
	public VirtualMembers virtualMembers() {
		return VirtualMembers.of(exchange);
	}

	@Override
	public void virtualMembers(VirtualMembers members) {
		exchange.getAttributes().put(VirtualMembers.ATTRIBUTE, members);
	}

	@Override
	public ExchangeRecord record() {
		return record;
	}

}
