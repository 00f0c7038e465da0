package dev.mcprelay.proxy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.UpstreamHeaders;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.jsonrpc.NoSuchList;
import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.sse.SseEventSplitter;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import reactor.core.publisher.Mono;

/**
 * Lists one of an upstream's lists whole ({@code tools/list}, {@code prompts/list}) on the relay's own account, within
 * a client's session: the list page after page (following {@code nextCursor}, at most {@link #MAX_PAGES}), sent like any request of that client
 * (its session, the configured headers and credentials, the upstream headers interceptors set for it) through the
 * server's transport, with ids of the relay's own.
 * The answer may come as JSON or SSE. Each page is bounded by {@code timeouts.non-streaming} and
 * {@code max-buffered-body}. No interceptor sees these requests; the caller applies its own policies to the result.
 */
@Component
public class UpstreamLister {

	/** The most pages one listing follows. */
	public static final int MAX_PAGES = 100;

	/**
	 * What a listing found: its items, and whether they are the whole list ({@code false}: the list went on past
	 * {@link #MAX_PAGES} pages, or past the page that named the item sought, and what was not read is missing).
	 */
	public record Listed(List<JsonNode> items, boolean whole) {
	}

	private static final AtomicLong IDS = new AtomicLong();

	/** Each list method the relay lists whole, and the field of its result that holds the items. */
	private static final java.util.Map<String, String> ITEMS = java.util.Map.of("tools/list", "tools", "prompts/list",
			"prompts");

	private final UpstreamTransports transports;

	UpstreamLister(UpstreamTransports transports) {
		this.transports = transports;
	}

	/**
	 * Every tool of {@code upstream}, as the JSON the server sent, in its order.
	 *
	 * @param clientHeaders the headers of the client request on whose behalf the relay lists (its session)
	 * @param changes the upstream headers interceptors set or removed for that request, applied last, as for the
	 * request itself
	 */
	public Mono<List<JsonNode>> listAll(Upstream upstream, HttpHeaders clientHeaders, Caller caller,
			UpstreamHeaders changes) {
		return listAll(upstream, "tools/list", clientHeaders, caller, changes);
	}

	/**
	 * Every item of the list {@code method} ({@code tools/list} or {@code prompts/list}) of {@code upstream}, as the
	 * JSON the server sent, in its order.
	 *
	 * @param clientHeaders the headers of the client request on whose behalf the relay lists (its session)
	 * @param changes the upstream headers interceptors set or removed for that request, applied last, as for the
	 * request itself
	 */
	public Mono<List<JsonNode>> listAll(Upstream upstream, String method, HttpHeaders clientHeaders, Caller caller,
			UpstreamHeaders changes) {
		return list(upstream, method, clientHeaders, caller, changes).map(Listed::items);
	}

	/**
	 * As {@link #listAll(Upstream, String, HttpHeaders, Caller, UpstreamHeaders)}, saying whether what was read is the
	 * whole list: a list longer than {@link #MAX_PAGES} pages is cut there.
	 */
	public Mono<Listed> list(Upstream upstream, String method, HttpHeaders clientHeaders, Caller caller,
			UpstreamHeaders changes) {
		return list(upstream, method, clientHeaders, caller, changes, null);
	}

	/**
	 * As {@link #list(Upstream, String, HttpHeaders, Caller, UpstreamHeaders)}, but reading pages only until one names
	 * an item {@code until} (that page is read whole; {@code null}: every page): what a caller that needs one item's
	 * definition reads, not the whole catalogue (review 43h F-3: a caller varying its view made each call a listing of
	 * every page). A listing that stopped there while the server had more pages is not {@link Listed#whole()}; one
	 * that does not find {@code until} reads the whole list, as the other does.
	 */
	public Mono<Listed> list(Upstream upstream, String method, HttpHeaders clientHeaders, Caller caller,
			UpstreamHeaders changes, String until) {
		String field = ITEMS.get(method);
		if (field == null) {
			return Mono.error(new IllegalArgumentException("The relay does not list " + method + " whole"));
		}
		List<JsonNode> items = new ArrayList<>();
		boolean[] cut = new boolean[1];
		return page(upstream, method, field, clientHeaders, caller, changes, null, items, 1, cut, until)
			.then(Mono.fromSupplier(() -> new Listed(items, !cut[0])));
	}

	private Mono<Void> page(Upstream upstream, String method, String field, HttpHeaders clientHeaders, Caller caller,
			UpstreamHeaders changes, String cursor, List<JsonNode> items, int number, boolean[] cut, String until) {
		return listPage(upstream, method, clientHeaders, caller, changes, cursor).flatMap(result -> {
			boolean found = false;
			for (JsonNode item : result.path(field)) {
				items.add(item);
				found |= until != null && until.equals(item.path("name").textValue());
			}
			String next = result.path("nextCursor").isTextual() ? result.get("nextCursor").asText() : null;
			if (next == null || next.isEmpty()) {
				return Mono.empty();
			}
			if (found || number >= MAX_PAGES) {
				cut[0] = true;
				return Mono.empty();
			}
			return page(upstream, method, field, clientHeaders, caller, changes, next, items, number + 1, cut,
					until);
		});
	}

	private Mono<JsonNode> listPage(Upstream upstream, String method, HttpHeaders clientHeaders, Caller caller,
			UpstreamHeaders changes, String cursor) {
		return Mono.defer(() -> {
			String id = "mcp-relay-" + ITEMS.get(method) + "-" + IDS.incrementAndGet();
			ObjectNode request = JsonRpcParser.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", id)
				.put("method", method);
			if (cursor != null) {
				request.putObject("params").put("cursor", cursor);
			}
			HttpHeaders headers = HeaderRules.relayRequestHeaders(clientHeaders, caller, upstream, method);
			String version = headers.getFirst("MCP-Protocol-Version");
			if (dev.mcprelay.jsonrpc.ProtocolVersions.isPerRequest(version)) {
				// a 2026-07-28 request carries its envelope in _meta (a server, or the bridge, refuses one without)
				McpMeta.relaysOwnEnvelope(request, version, "listing");
			}
			changes.forEachChange((name, value) -> {
				if (value == null) {
					headers.remove(name);
				}
				else {
					headers.set(name, value);
				}
			});
			byte[] body = request.toString().getBytes(StandardCharsets.UTF_8);
			UpstreamRequest upstreamRequest = new UpstreamRequest(upstream.id(), HttpMethod.POST, upstream.uri(),
					headers, body, caller.id(), null);
			JsonNode[] result = new JsonNode[1];
			return transports.of(upstream)
				.send(upstreamRequest, response -> read(upstream, method, response, id, cursor == null)
					.doOnNext(found -> result[0] = found)
					.then())
				.timeout(upstream.nonStreamingTimeout())
				.then(Mono.fromSupplier(() -> result[0]))
				.switchIfEmpty(Mono.error(() -> RelayFailures.upstreamInvalidResponse(upstream.id(),
						"it did not answer the relay's " + method)));
		});
	}

	/**
	 * The result of the response with {@code id}, read from a JSON or SSE body; an error response fails, but for a
	 * {@code firstPage} answered -32601: the server has no such list ({@link NoSuchList}), read as an empty one, which
	 * is kept as a list is (review 43n M-3: a tools-reading policy called it unavailable and asked again at every call,
	 * where a virtual server's list said it lists none).
	 */
	private static Mono<JsonNode> read(Upstream upstream, String method, UpstreamResponse response, String id,
			boolean firstPage) {
		if (!response.statusCode().is2xxSuccessful()) {
			return response.releaseBody().then(Mono.error(RelayFailures.upstreamErrorStatus(upstream.id(),
					response.statusCode().value())));
		}
		MediaType type = response.contentType();
		boolean stream = type != null && type.isCompatibleWith(MediaType.TEXT_EVENT_STREAM);
		return BoundedBody.read(response.body(), upstream.maxBufferedBody(),
				() -> RelayFailures.upstreamResponseTooLarge(upstream.id(), upstream.maxBufferedBody()))
			.flatMap(body -> {
				try {
					for (byte[] message : stream ? eventData(body, upstream) : List.of(body)) {
						JsonRpcPayload payload = JsonRpcParser.parse(message);
						for (JsonRpcMessage candidate : payload.messages()) {
							if (candidate.isResponse() && id.equals(candidate.id().asText())) {
								if (candidate.isError() && firstPage && NoSuchList.saidBy(candidate.node())) {
									return Mono.just(JsonRpcParser.mapper().createObjectNode());
								}
								if (candidate.isError()) {
									return Mono.error(RelayFailures.upstreamInvalidResponse(upstream.id(),
											"it refused the relay's " + method + ": "
													+ candidate.node().path("error").path("message").asText()));
								}
								return Mono.just(candidate.node().path("result"));
							}
						}
					}
				}
				catch (JsonRpcParseException ex) {
					return Mono.error(RelayFailures.upstreamInvalidResponse(upstream.id(), ex.getMessage()));
				}
				return Mono.empty();
			});
	}

	private static List<byte[]> eventData(byte[] body, Upstream upstream) {
		SseEventSplitter splitter = new SseEventSplitter(upstream.maxBufferedBody().toBytes());
		List<byte[]> data = new ArrayList<>();
		for (SseEvent event : splitter.split(org.springframework.core.io.buffer.DefaultDataBufferFactory.sharedInstance
			.wrap(body))) {
			if (event.isMessage()) {
				data.add(event.dataBytes());
			}
		}
		return data;
	}

}
