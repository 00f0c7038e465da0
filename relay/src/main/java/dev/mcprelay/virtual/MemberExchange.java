package dev.mcprelay.virtual;

import java.util.function.Supplier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.support.Netty4HeadersAdapter;

import dev.mcprelay.api.Caller;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.http.ReloadEnding;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The exchange a virtual server has with one member's relay, in this process: the member's path, the headers the
 * virtual server chose (which the relay may change in place: it puts a session's own id in place of the bound one),
 * the message as bytes (and, when the virtual server parsed it, as the
 * tree the member's relay starts from: {@link #parsedBody()}), and the decisions of the client's request (its caller, the virtual server's usable members),
 * with a record of its own, so that the member's meters and log line are those of a request to the member. Its response
 * is a {@link MemberResponse}. Cancelling the relay's handling of it cancels the member's exchange; a reload that ends
 * the client request's virtual server, or withdraws the client's access to it, ends its streams
 * ({@link #endedByReload()}).
 */
final class MemberExchange implements RelayExchange {

	private final HttpMethod method;

	private final McpRoute route;

	private final ConfigurationSnapshot configuration;

	private final HttpHeaders headers;

	private final org.springframework.http.HttpHeaders headerView;

	private final byte[] body;

	private final JsonRpcPayload parsed;

	private final Caller caller;

	private final VirtualMembers virtual;

	private final MemberResponse response;

	private final ExchangeRecord record;

	private final Mono<ReloadEnding> endedByReload;

	private final Supplier<Mono<Boolean>> withdrawnNow;

	/**
	 * @param configuration the client's exchange's snapshot: a member's exchange runs on the same one
	 * @param body the message (POST), or {@code null}
	 * @param parsed {@code body} parsed, for the member's relay to start from ({@link #parsedBody()}), or {@code null}
	 * @param endedByReload when a reload ends it ({@link #endedByReload()}: the virtual server's version ended, the
	 * client's access to it withdrawn)
	 * @param withdrawnNow whether the client's access to this member is withdrawn now ({@link #accessWithdrawnNow()})
	 */
	MemberExchange(HttpMethod method, McpRoute route, ConfigurationSnapshot configuration, HttpHeaders headers,
			byte[] body, JsonRpcPayload parsed, Caller caller, VirtualMembers virtual, MemberResponse response,
			Mono<ReloadEnding> endedByReload, Supplier<Mono<Boolean>> withdrawnNow) {
		this.endedByReload = endedByReload;
		this.withdrawnNow = withdrawnNow;
		this.method = method;
		this.route = route;
		this.configuration = configuration;
		this.headers = headers;
		this.headerView = new org.springframework.http.HttpHeaders(new Netty4HeadersAdapter(headers));
		this.body = body;
		this.parsed = parsed;
		this.caller = caller;
		this.virtual = virtual;
		this.response = response;
		this.record = ExchangeRecord.begin(method);
		record.server(route.server());
		record.virtualServer(virtual.virtualServer());
		record.requestId(headers.get("X-Request-Id"));
	}

	@Override
	public HttpMethod method() {
		return method;
	}

	@Override
	public String rawPath() {
		return "/mcp/" + route.server();
	}

	@Override
	public String rawQuery() {
		return null;
	}

	@Override
	public HttpHeaders requestHeaders() {
		return headers;
	}

	@Override
	public org.springframework.http.HttpHeaders requestHeaderView() {
		return headerView;
	}

	@Override
	public Flux<DataBuffer> requestBody() {
		return body == null ? Flux.empty()
				: Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
	}

	@Override
	public JsonRpcPayload parsedBody() {
		return parsed;
	}

	@Override
	public boolean answeredByServer() {
		return false;
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

	@Override
	public VirtualMembers virtualMembers() {
		return virtual;
	}

	@Override
	public void virtualMembers(VirtualMembers members) {
		throw new UnsupportedOperationException("A member's exchange carries the virtual server's decision");
	}

	@Override
	public ExchangeRecord record() {
		return record;
	}

	@Override
	public Mono<ReloadEnding> endedByReload() {
		return endedByReload;
	}

	/** The virtual server judges the client's access to this member ({@link #endedByReload()}), not the member's. */
	@Override
	public boolean accessJudgedBeyondItsServer() {
		return true;
	}

	/**
	 * Whether the client's access to this member was withdrawn since its request was admitted (its whole access, or
	 * this member: {@code RelayExchange.accessWithdrawnNowFrom}), for the member's relay to refuse the message before
	 * it goes; never for a message that outlives its client request.
	 */
	@Override
	public Mono<Boolean> accessWithdrawnNow() {
		return withdrawnNow.get();
	}

}
