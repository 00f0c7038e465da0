package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.NoSuchList;
import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.proxy.UpstreamLister;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The four lists of a virtual server ({@code tools/list}, {@code prompts/list}, {@code resources/list},
 * {@code resources/templates/list}): asked of every usable member at once (so a merged page takes as long as the
 * slowest member, not the sum), merged in configuration order, tool and prompt names prefixed; resource URIs are never
 * rewritten. A name two members publish stays with the earlier member ({@link NameClashes}). Members with more pages
 * are carried in one signed cursor ({@link VirtualCursor}); a cursor the relay did not give for this list and session
 * is answered -32602. A member that cannot answer is left out, and the client is told ({@link MemberAvailability}).
 */
@Component
class VirtualLists {

	/** Each list method and the field of its result that holds the items. */
	static final Map<String, String> ITEMS = Map.of("tools/list", "tools", "prompts/list", "prompts", "resources/list",
			"resources", "resources/templates/list", "resourceTemplates");

	private final MemberRequests requests;

	private final MembersUsableNow usableNow;

	private final VirtualCursor cursors;

	private final NameClashes clashes;

	private final MemberAvailability availability;

	private final ListCache cache;

	private final MemberViews views;

	private final MemberListPolicies policies;

	/** The id of the list requests the virtual server makes on its own account. */
	static final String CATALOGUE_ID = "mcp-relay-catalogue";

	VirtualLists(MemberRequests requests, VirtualCursor cursors, NameClashes clashes, MemberAvailability availability,
			ListCache cache, MemberViews views, MemberListPolicies policies, MembersUsableNow usableNow) {
		this.usableNow = usableNow;
		this.cache = cache;
		this.policies = policies;
		this.views = views;
		this.requests = requests;
		this.cursors = cursors;
		this.clashes = clashes;
		this.availability = availability;
	}

	/** A merged page: the response for the client and the warnings to send before it. */
	record Page(ObjectNode response, List<ObjectNode> warnings) {
	}

	/**
	 * One member's page of one list.
	 *
	 * @param rest the result's other fields ({@code resultType}, {@code ttlMs}, {@code cacheScope}, ...)
	 * @param whole whether {@code items} are the member's whole page ({@link ListCache}'s), not yet decided for the
	 * request by its policies ({@link MemberListPolicies}); otherwise the member's relay decided them for it
	 */
	record MemberPage(String member, List<ObjectNode> items, String nextCursor, ObjectNode rest,
			List<ObjectNode> notices, boolean whole) {

		/** The page with only what the request of {@code call} may use, decided by {@code policies}. */
		MemberPage decided(VirtualCall call, String method, MemberListPolicies policies) {
			if (!whole) {
				return this;
			}
			MemberListPolicies.Decision decision = policies.of(call, member, method);
			List<ObjectNode> usable = items.stream()
				.filter(item -> decision.lists(MemberListPolicies.name(method, item), item))
				.toList();
			return new MemberPage(member, usable, nextCursor, rest, notices, false);
		}

	}

	static boolean isList(String method) {
		return method != null && ITEMS.containsKey(method);
	}

	/** Answers list request {@code request}. */
	Mono<Page> page(VirtualCall call, ObjectNode request) {
		String method = request.get("method").asText();
		JsonNode id = request.get("id");
		JsonNode cursor = request.path("params").get("cursor");
		Map<String, String> members;
		if (cursor == null || cursor.isNull()) {
			members = new LinkedHashMap<>();
			call.usable().forEach(member -> members.put(member, null));
		}
		else {
			Map<String, String> decoded = cursor.isTextual() ? cursors.decode(call, method, cursor.textValue()) : null;
			if (decoded == null) {
				return Mono.just(new Page(JsonRpcErrors.error(id, JsonRpcErrorCodes.INVALID_PARAMS,
						"Invalid cursor: it is not one this endpoint gave for " + method + " in this session",
						Map.of("reason", "invalid_cursor")), List.of()));
			}
			members = new LinkedHashMap<>();
			decoded.forEach((member, memberCursor) -> {
				if (call.usable().contains(member)) {
					members.put(member, memberCursor);
				}
			});
		}
		List<ObjectNode> warnings = new ArrayList<>();
		return Flux.fromIterable(members.entrySet())
			// a member the caller lost, or whose server was removed, since the admission: left out, as the member's own
			// exchange would refuse it, also when its page is kept (asking the member nothing)
			.flatMapSequential(member -> usableNow.check(call, member.getKey())
				.then(memberPage(call, request, member.getKey(), member.getValue()))
				.map(page -> page.decided(call, method, policies))
				.onErrorResume(MemberUnavailable.class, failure -> {
					synchronized (warnings) {
						warnings.add(availability.unavailable(call.server().id(), failure));
					}
					return Mono.empty();
				}), Math.max(1, members.size()))
			.collectList()
			.map(pages -> {
				List<ObjectNode> told = new ArrayList<>(warnings);
				pages.forEach(page -> told.addAll(page.notices()));
				return new Page(merge(call, method, id, pages), told);
			});
	}

	/**
	 * Every item of {@code member}'s list {@code method}, page after page, as the member publishes them (no prefix) to
	 * the view of {@code call}'s request, before any policy decided them for a request (the caller of
	 * {@link PublishedNames} decides them per request: {@link MemberListPolicies}), and whether that is the whole list: as the relay lists a server ({@link UpstreamLister}), at most
	 * {@link UpstreamLister#MAX_PAGES} pages are read, and a list that goes on past them is said to be cut
	 * ({@link UpstreamLister.Listed#whole()} false), never passed off as whole. In a 2026-07-28 client's request each
	 * page's request carries the relay's own {@code _meta} envelope ({@link McpMeta#relaysOwnEnvelope}).
	 */
	Mono<UpstreamLister.Listed> all(VirtualCall call, String method, String member) {
		ObjectNode request = JsonRpcParser.mapper().createObjectNode();
		request.put("jsonrpc", "2.0");
		request.put("id", CATALOGUE_ID);
		request.put("method", method);
		// without a session (a 2026-07-28 client's request) the member gets the client's protocol version
		// (MemberCalls), so a per-request version's listing carries the relay's own envelope, as every request the
		// relay makes itself to a 2026-07-28 server does (McpMeta.relaysOwnEnvelope): a member refuses one without it
		// with 400, and then lists nothing the virtual server can route to (review 43j N-9)
		String version = call.stateless() ? call.exchange().requestHeaders().get("MCP-Protocol-Version") : null;
		if (ProtocolVersions.isPerRequest(version)) {
			McpMeta.relaysOwnEnvelope(request, version, "listing");
		}
		return Mono.defer(() -> {
			List<JsonNode> items = new ArrayList<>();
			return pages(call, request, member, null, 1, items).map(whole -> new UpstreamLister.Listed(items, whole));
		});
	}

	/** Reads page {@code number} (at {@code cursor}) and those after it into {@code items}; whether the list ended. */
	private Mono<Boolean> pages(VirtualCall call, ObjectNode request, String member, String cursor, int number,
			List<JsonNode> items) {
		return memberPage(call, request, member, cursor).flatMap(page -> {
			items.addAll(page.items());
			if (page.nextCursor() == null) {
				return Mono.just(true);
			}
			return number >= UpstreamLister.MAX_PAGES ? Mono.just(false)
					: pages(call, request, member, page.nextCursor(), number + 1, items);
		});
	}

	private Mono<MemberPage> memberPage(VirtualCall call, ObjectNode request, String member, String cursor) {
		ObjectNode asked = request.deepCopy();
		ObjectNode params = asked.get("params") instanceof ObjectNode given ? given : asked.putObject("params");
		if (cursor == null) {
			params.remove("cursor");
		}
		else {
			params.put("cursor", cursor);
		}
		if (params.isEmpty()) {
			asked.remove("params");
		}
		String method = request.get("method").asText();
		String field = ITEMS.get(method);
		// a page kept beyond this request is asked whole (the member's relay leaves it undecided), and decided for each
		// request that reads it (MemberPage.decided, PublishedNames): one request's policies never decide another's page.
		// A tool search catalogue's listing is whole too, and kept only by the catalogue, never as a page
		boolean kept = !call.access().catalogue()
				&& (call.stateless() || CATALOGUE_ID.equals(request.path("id").asText()));
		boolean whole = kept || call.access().catalogue();
		Mono<MemberRequests.Reply> asking = kept
				? cache.get(new ListCache.Key(call.server().id(), views.of(call, member), method, cursor),
						() -> requests.request(call.forCatalogue(), member, asked))
				: requests.request(call, member, asked);
		return asking.flatMap(reply -> {
			ObjectNode response = reply.response();
			if (NoSuchList.saidBy(response)) {
				// the member has no such list: it lists none, and is not unavailable (review 43j N-4)
				return Mono.just(new MemberPage(member, List.of(), null, JsonRpcParser.mapper().createObjectNode(),
						reply.notices(), whole));
			}
			if (!(response.get("result") instanceof ObjectNode result)) {
				return Mono.error(new MemberUnavailable(member, "answered " + request.get("method").asText()
						+ " with an error: " + response.path("error").path("message").asText("no message")));
			}
			List<ObjectNode> items = new ArrayList<>();
			result.path(field).forEach(item -> {
				if (item instanceof ObjectNode object) {
					items.add(object);
				}
			});
			JsonNode next = result.get("nextCursor");
			ObjectNode rest = result.deepCopy();
			rest.remove(field);
			rest.remove("nextCursor");
			return Mono.just(new MemberPage(member, items, next != null && next.isTextual() ? next.textValue() : null,
					rest, reply.notices(), whole));
		});
	}

	private ObjectNode merge(VirtualCall call, String method, JsonNode id, List<MemberPage> pages) {
		String field = ITEMS.get(method);
		String key = switch (field) {
			case "resources" -> "uri";
			case "resourceTemplates" -> "uriTemplate";
			default -> "name";
		};
		boolean prefixed = key.equals("name");
		Map<String, String> owners = new HashMap<>();
		ObjectNode response = JsonRpcParser.mapper().createObjectNode();
		response.put("jsonrpc", "2.0");
		response.set("id", id);
		ObjectNode result = response.putObject("result");
		ArrayNode items = result.putArray(field);
		ResultFields.merge(result, pages.stream().map(MemberPage::rest).toList());
		Map<String, String> next = new LinkedHashMap<>();
		for (MemberPage page : pages) {
			for (ObjectNode item : page.items()) {
				JsonNode name = item.get(key);
				if (name == null || !name.isTextual()) {
					continue;
				}
				String exposed = prefixed ? call.server().exposedName(page.member(), name.textValue()) : name.textValue();
				String owner = owners.putIfAbsent(exposed, page.member());
				if (owner != null) {
					clashes.report(call.server().id(), field, exposed, owner, page.member());
					continue;
				}
				if (prefixed && !exposed.equals(name.textValue())) {
					ObjectNode renamed = item.deepCopy();
					renamed.put("name", exposed);
					items.add(renamed);
				}
				else {
					items.add(item);
				}
			}
			if (page.nextCursor() != null) {
				next.put(page.member(), page.nextCursor());
			}
		}
		if (!next.isEmpty()) {
			result.put("nextCursor", cursors.encode(call, method, next));
		}
		return response;
	}

}
