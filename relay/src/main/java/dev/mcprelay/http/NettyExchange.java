package dev.mcprelay.http;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.support.Netty4HeadersAdapter;

import dev.mcprelay.api.Caller;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Flux;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A {@link RelayExchange} on Reactor Netty's own request and response, for the MCP paths Reactor Netty hands the relay
 * directly ({@code McpRoutes}), with nothing of WebFlux between: the request's headers are Netty's, its body Netty's
 * buffers (retained for the subscriber, which releases each), and the decisions are fields, set by what runs before the
 * relay. Reactor Netty cancels the relay's handling when the client goes away.
 */
public final class NettyExchange implements RelayExchange {

	private final HttpServerRequest request;

	private final HttpMethod method;

	private final String rawPath;

	private final String rawQuery;

	private final McpRoute route;

	private final NettyDataBufferFactory buffers;

	private final NettyResponse response;

	private final ExchangeRecord record;

	private org.springframework.http.HttpHeaders requestHeaderView;

	private volatile VirtualMembers virtualMembers;

	private volatile Caller caller = Caller.ANONYMOUS;

	/**
	 * @param target the request target as received, split once ({@link RequestTarget})
	 * @param route the routing decision made on {@code target}'s path
	 */
	public NettyExchange(HttpServerRequest request, HttpServerResponse response, RequestTarget target, McpRoute route) {
		this.request = request;
		this.method = HttpMethod.valueOf(request.method().name());
		this.rawPath = target.rawPath();
		this.rawQuery = target.rawQuery();
		this.route = route;
		this.record = ExchangeRecord.begin(method, route);
		this.buffers = new NettyDataBufferFactory(response.alloc());
		this.response = new NettyResponse(response, buffers, record);
	}

	@Override
	public HttpMethod method() {
		return method;
	}

	@Override
	public String rawPath() {
		return rawPath;
	}

	@Override
	public String rawQuery() {
		return rawQuery;
	}

	@Override
	public HttpHeaders requestHeaders() {
		return request.requestHeaders();
	}

	@Override
	public org.springframework.http.HttpHeaders requestHeaderView() {
		org.springframework.http.HttpHeaders view = requestHeaderView;
		if (view == null) {
			view = new org.springframework.http.HttpHeaders(new Netty4HeadersAdapter(request.requestHeaders()));
			requestHeaderView = view;
		}
		return view;
	}

	@Override
	public Flux<DataBuffer> requestBody() {
		return request.receive().retain().map(buffers::wrap);
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
		return caller;
	}

	/** Records who sent the request, once the front door established it. */
	public void caller(Caller caller) {
		this.caller = caller;
	}

	@Override
	public VirtualMembers virtualMembers() {
		return virtualMembers;
	}

	@Override
	public void virtualMembers(VirtualMembers members) {
		this.virtualMembers = members;
	}

	@Override
	public ExchangeRecord record() {
		return record;
	}

}
