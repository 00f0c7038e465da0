package dev.mcprelay.http;

import java.util.Collection;
import java.util.function.Function;
import java.util.function.Supplier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.support.Netty4HeadersAdapter;

import dev.mcprelay.api.Caller;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
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

	private final ConfigurationSnapshot configuration;

	private final NettyDataBufferFactory buffers;

	private final NettyResponse response;

	private final ExchangeRecord record;

	private org.springframework.http.HttpHeaders requestHeaderView;

	private volatile VirtualMembers virtualMembers;

	private volatile Caller caller = Caller.ANONYMOUS;

	private volatile Mono<Void> accessWithdrawn = Mono.never();

	private volatile Function<Supplier<? extends Collection<String>>, Mono<Void>> accessWithdrawnFromAny =
			members -> Mono.never();

	private volatile Function<String, Mono<Void>> accessGrantedTo = member -> Mono.never();

	private volatile Function<String, Mono<Boolean>> accessUsableNow = member -> USABLE;

	private volatile Supplier<Mono<Boolean>> accessWithdrawnNow = () -> NOT_WITHDRAWN;

	private volatile Function<Supplier<? extends Collection<String>>, Mono<Boolean>> accessWithdrawnNowFromAny =
			members -> NOT_WITHDRAWN;

	/**
	 * @param target the request target as received, split once ({@link RequestTarget})
	 * @param route the routing decision made on {@code target}'s path
	 * @param configuration the snapshot {@code route} was decided on, which the request runs on to its end
	 */
	public NettyExchange(HttpServerRequest request, HttpServerResponse response, RequestTarget target, McpRoute route,
			ConfigurationSnapshot configuration) {
		this.request = request;
		this.method = HttpMethod.valueOf(request.method().name());
		this.rawPath = target.rawPath();
		this.rawQuery = target.rawQuery();
		this.route = route;
		this.configuration = configuration;
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

	/**
	 * {@code scheme://host[:port]} as the client addressed the relay, as Reactor Netty reads it from the request (and
	 * from {@code Forwarded}/{@code X-Forwarded-*} when {@code server.forward-headers-strategy} is {@code native}), the
	 * way WebFlux builds a request's URI: the port left out when it is the scheme's default, an IPv6 host in brackets,
	 * and every character a host may not hold percent-encoded, so that it can be quoted in a header.
	 */
	public String origin() {
		String scheme = request.scheme();
		StringBuilder origin = new StringBuilder(scheme).append("://");
		String host = request.hostName();
		boolean ipv6 = host.indexOf(':') >= 0;
		boolean bracketed = host.startsWith("[") && host.endsWith("]");
		if (ipv6 && !bracketed) {
			origin.append('[');
		}
		for (int i = 0; i < host.length(); i++) {
			char c = host.charAt(i);
			if (allowedInHost(c, ipv6)) {
				origin.append(c);
			}
			else {
				for (byte b : String.valueOf(c).getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
					origin.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xF, 16)))
						.append(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
				}
			}
		}
		if (ipv6 && !bracketed) {
			origin.append(']');
		}
		int port = request.hostPort();
		boolean defaultPort = (port == 80 && ("http".equals(scheme) || "ws".equals(scheme)))
				|| (port == 443 && ("https".equals(scheme) || "wss".equals(scheme)));
		if (port > 0 && !defaultPort) {
			origin.append(':').append(port);
		}
		return origin.toString();
	}

	/** RFC 3986's unreserved and sub-delims characters, and for an IPv6 literal its colons and brackets. */
	private static boolean allowedInHost(char c, boolean ipv6) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~!$&'()*+,;=".indexOf(c) >= 0
				|| (ipv6 && (c == ':' || c == '[' || c == ']' || c == '%'));
	}

	/**
	 * {@code key}'s attribute of the client's connection, which lives as long as the connection and is seen by every
	 * request that follows on it, and by no other connection (on HTTP/2, the connection's, not the stream's).
	 */
	public <T> Attribute<T> connectionAttribute(AttributeKey<T> key) {
		return connection().attr(key);
	}

	/**
	 * Keeps {@code value} on the client's connection until its deadline ({@link ExpiringConnectionAttribute}), for
	 * every request that follows on that connection, and for no other connection.
	 */
	public <T> void keepOnConnection(ExpiringConnectionAttribute<T> attribute, T value) {
		attribute.keep(connection(), value);
	}

	/** The client's connection (on HTTP/2, the connection's channel, not the stream's). */
	private Channel connection() {
		// Reactor Netty's request is its connection's operations: a Connection, whose channel needs no callback.
		Channel channel = ((Connection) request).channel();
		return channel instanceof Http2StreamChannel stream ? stream.parent() : channel;
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
	public ConfigurationSnapshot configuration() {
		return configuration;
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
	public Mono<Void> accessWithdrawn() {
		return accessWithdrawn;
	}

	@Override
	public Mono<Void> accessWithdrawnFromAny(Supplier<? extends Collection<String>> members) {
		return accessWithdrawnFromAny.apply(members);
	}

	/**
	 * Records when a reload withdraws the caller's access the front door granted: {@code withdrawn} for the request's
	 * route ({@link #accessWithdrawn()}), {@code fromAny} for what carries some members of its virtual server
	 * ({@link #accessWithdrawnFromAny}, {@link #accessWithdrawnFrom}).
	 */
	public void accessWithdrawn(Mono<Void> withdrawn,
			Function<Supplier<? extends Collection<String>>, Mono<Void>> fromAny) {
		this.accessWithdrawn = withdrawn;
		this.accessWithdrawnFromAny = fromAny;
	}

	@Override
	public Mono<Void> accessGrantedTo(String member) {
		return accessGrantedTo.apply(member);
	}

	/**
	 * Sets when a reload lets the request's caller use a member of its virtual server its admission did not grant
	 * ({@link #accessGrantedTo}).
	 */
	public void accessGrantedTo(Function<String, Mono<Void>> toMember) {
		this.accessGrantedTo = toMember;
	}

	@Override
	public Mono<Boolean> accessUsableNow(String member) {
		return accessUsableNow.apply(member);
	}

	/**
	 * Sets how the caller's use of a member of its virtual server is judged on the configuration current now
	 * ({@link #accessUsableNow}).
	 */
	public void accessUsableNow(Function<String, Mono<Boolean>> ofMember) {
		this.accessUsableNow = ofMember;
	}

	@Override
	public Mono<Boolean> accessWithdrawnNow() {
		return accessWithdrawnNow.get();
	}

	@Override
	public Mono<Boolean> accessWithdrawnNowFromAny(Supplier<? extends Collection<String>> members) {
		return accessWithdrawnNowFromAny.apply(members);
	}

	/**
	 * Records how the caller's access the front door granted is checked against the current configuration: {@code check}
	 * for the request's route ({@link #accessWithdrawnNow()}), {@code fromAny} for what carries some members of its
	 * virtual server ({@link #accessWithdrawnNowFromAny}, {@link #accessWithdrawnNowFrom}).
	 */
	public void accessWithdrawnNow(Supplier<Mono<Boolean>> check,
			Function<Supplier<? extends Collection<String>>, Mono<Boolean>> fromAny) {
		this.accessWithdrawnNow = check;
		this.accessWithdrawnNowFromAny = fromAny;
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
