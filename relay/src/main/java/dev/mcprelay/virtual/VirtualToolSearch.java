package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.ToolsProperties;
import dev.mcprelay.policy.ToolNameFilter;
import dev.mcprelay.interceptors.toolsearch.SearchQuery;
import dev.mcprelay.interceptors.toolsearch.ToolIndex;
import dev.mcprelay.interceptors.toolsearch.ToolSearchAnswers;
import dev.mcprelay.interceptors.toolsearch.ToolSearchPolicy;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.session.SessionStoreUnavailableException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Tool search over a virtual server's merged catalogue ({@code mcp-relay.virtual-servers.<id>.tool-search}): as for a
 * server (seed 004), {@code tools/list} offers {@value ToolSearchPolicy#SEARCH_TOOL}, the tools of
 * {@code always-expose} and what this session's searches found; a search ranks the prefixed tools of every member the
 * caller may use (BM25, {@link ToolIndex}), exposes the best in the session (the session store, so every replica
 * honours it) and answers {@code notifications/tools/list_changed} before its result; a call of a tool the session does
 * not expose is refused with -32602, telling the model to search first. Each member's own allow/deny lists apply
 * already (its tools come through its relay). The merged catalogue is kept per virtual server and set of usable members
 * for {@link #CATALOGUE_AGE}, and dropped when a member says its tools changed.
 */
@Component
class VirtualToolSearch {

	/** How long a merged catalogue is kept without a member's {@code list_changed}. */
	static final Duration CATALOGUE_AGE = Duration.ofMinutes(5);

	private final VirtualLists lists;

	private final SessionStore store;

	private final NameClashes clashes;

	private final Cache<List<String>, ToolIndex> catalogues = Caffeine.newBuilder()
		.expireAfterWrite(CATALOGUE_AGE)
		.maximumSize(1_000)
		.build();

	VirtualToolSearch(VirtualLists lists, SessionStore store, NameClashes clashes, VirtualServers servers) {
		this.lists = lists;
		this.store = store;
		this.clashes = clashes;
		if (servers.anySearches()) {
			ToolIndex.warmUp();
		}
	}

	/** The client's {@code tools/list}: the search tool, the pinned tools and the session's found tools. */
	Mono<ObjectNode> list(VirtualCall call, ObjectNode request) {
		return catalogue(call).map(index -> {
			ObjectNode response = response(request.get("id"));
			ArrayNode tools = response.putObject("result").putArray("tools");
			tools.add(ToolSearchAnswers.searchTool(call.server().toolSearch().maxResults()));
			for (ObjectNode tool : index.tools()) {
				String name = ToolIndex.name(tool);
				if (pinned(call, name) || call.exposedTools().contains(name)) {
					// a copy, as the member sent it (renamed): the kept catalogue is never edited
					tools.add(tool.deepCopy());
				}
			}
			return response;
		});
	}

	/** A search: the best matches, exposed in the session; the answer's messages (list_changed, then the result). */
	Mono<List<ObjectNode>> search(VirtualCall call, ObjectNode request) {
		SearchQuery query;
		try {
			query = SearchQuery.of(request.path("params").path("arguments"), call.server().toolSearch().maxResults());
		}
		catch (RejectError refused) {
			return Mono.just(List.of(JsonRpcErrors.error(request.get("id"), refused.code(), refused.getMessage(),
					refused.data())));
		}
		return catalogue(call).flatMap(index -> {
			List<ObjectNode> found = index.search(query.read(), query.limit());
			List<String> names = found.stream().map(ToolIndex::name).toList();
			Mono<Void> exposed = call.stateless() ? Mono.empty()
					: store.expose(new SessionKey(call.server().id(), call.session().id()), names);
			return exposed
				.onErrorMap(SessionStoreUnavailableException.class,
						ex -> RelayFailures.sessionStoreUnavailable(call.server().id()))
				.then(Mono.fromSupplier(() -> {
					ObjectNode changed = JsonRpcParser.mapper().createObjectNode();
					changed.put("jsonrpc", "2.0");
					changed.put("method", "notifications/tools/list_changed");
					ObjectNode response = response(request.get("id"));
					response.set("result", ToolSearchAnswers.result(query.text(), found));
					return List.of(changed, response);
				}));
		});
	}

	/** The refusal of a call of {@code tool}, or {@code null} when the session may call it. */
	ObjectNode refusal(VirtualCall call, ObjectNode request, String tool) {
		// Without a session (2026-07-28) nothing can be remembered: any tool may be called, as for a server.
		if (call.stateless() || pinned(call, tool) || call.exposedTools().contains(tool)) {
			return null;
		}
		return JsonRpcErrors.error(request.get("id"), JsonRpcErrorCodes.INVALID_PARAMS, "Tool '" + tool
				+ "' is not available in this session yet. Call " + ToolSearchPolicy.SEARCH_TOOL + " with a query "
				+ "describing what you need; the tools it finds can then be called.", Map.of("reason", "not_exposed"));
	}

	/** Drops the merged catalogues of {@code virtualId}: a member's tools changed. */
	void invalidate(String virtualId) {
		catalogues.asMap().keySet().removeIf(key -> key.get(0).equals(virtualId));
	}

	private boolean pinned(VirtualCall call, String tool) {
		List<String> patterns = call.server().toolSearch().alwaysExpose();
		return !patterns.isEmpty() && new ToolNameFilter(new ToolsProperties(patterns, List.of())).offers(tool);
	}

	/** The merged, prefixed catalogue of the members this caller may use. */
	private Mono<ToolIndex> catalogue(VirtualCall call) {
		List<String> key = new ArrayList<>();
		key.add(call.server().id());
		key.addAll(call.usable());
		ToolIndex kept = catalogues.getIfPresent(key);
		if (kept != null) {
			return Mono.just(kept);
		}
		return Flux.fromIterable(call.usable())
			.flatMapSequential(member -> lists.all(call, "tools/list", member)
				.map(tools -> Map.entry(member, tools))
				.onErrorResume(MemberUnavailable.class, failure -> Mono.empty()))
			.collectList()
			.map(perMember -> {
				Map<String, ObjectNode> merged = new LinkedHashMap<>();
				Map<String, String> owners = new LinkedHashMap<>();
				for (Map.Entry<String, List<ObjectNode>> member : perMember) {
					for (ObjectNode node : member.getValue()) {
						String name = call.server().exposedName(member.getKey(), node.path("name").asText());
						if (ToolSearchPolicy.SEARCH_TOOL.equals(name)) {
							continue;
						}
						if (owners.putIfAbsent(name, member.getKey()) != null) {
							clashes.report(call.server().id(), "tools", name, owners.get(name), member.getKey());
							continue;
						}
						merged.put(name, node.deepCopy().put("name", name));
					}
				}
				ToolIndex index = new ToolIndex(List.copyOf(merged.values()));
				catalogues.put(key, index);
				return index;
			});
	}

	private static ObjectNode response(JsonNode id) {
		ObjectNode response = JsonRpcParser.mapper().createObjectNode();
		response.put("jsonrpc", "2.0");
		response.set("id", id);
		return response;
	}

}
