package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.ToolsProperties;
import dev.mcprelay.policy.ToolNameFilter;
import dev.mcprelay.interceptors.toolsearch.SearchQuery;
import dev.mcprelay.interceptors.toolsearch.ToolIndex;
import dev.mcprelay.interceptors.toolsearch.ToolSearchAnswers;
import dev.mcprelay.interceptors.toolsearch.ToolSearchPolicy;
import dev.mcprelay.interceptors.toolsearch.CatalogueListings;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.metrics.RelayOutcome;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.session.SessionStoreUnavailableException;
import reactor.core.publisher.Mono;

/**
 * Tool search over a virtual server's merged catalogue ({@code mcp-relay.virtual-servers.<id>.tool-search}): as for a
 * server (seed 004), {@code tools/list} offers {@value ToolSearchPolicy#SEARCH_TOOL}, the tools of
 * {@code always-expose} and what this session's searches found; a search ranks the prefixed tools of every member the
 * caller may use ({@link VirtualToolCatalogues}: the members' whole lists, merged, indexed and kept per view), exposes
 * the best in the session (the session store, so every replica honours it) and answers
 * {@code notifications/tools/list_changed} before its result; a call of a tool the session does not expose is refused
 * with -32602, telling the model to search first. What a {@code tools/list} or a search answers of the catalogue is
 * decided by the policies of the request it answers (each member's policies and allow/deny lists, as the member's
 * relay decides them: {@link MemberListPolicies}), as for a server's tool search: a token's scopes, a claim or a
 * request header may differ between two requests of one caller, and what is listed is what may be called. A member
 * whose list could not be read whole refuses the request as a server's tool search does.
 */
@Component
class VirtualToolSearch {

	private final VirtualToolCatalogues catalogues;

	private final SessionStore store;

	VirtualToolSearch(VirtualToolCatalogues catalogues, SessionStore store) {
		this.catalogues = catalogues;
		this.store = store;
	}

	/**
	 * The client's {@code tools/list}: the search tool, the pinned tools and the session's found tools; after warnings
	 * about members left out.
	 */
	Mono<VirtualLists.Page> list(VirtualCall call, ObjectNode request) {
		return catalogues.catalogue(call).map(catalogue -> {
			ToolIndex index = catalogue.index();
			Predicate<ObjectNode> usable = catalogue.usableBy(call);
			ObjectNode response = response(request.get("id"));
			ArrayNode tools = response.putObject("result").putArray("tools");
			tools.add(ToolSearchAnswers.searchTool(call.server().toolSearch().maxResults()));
			for (ObjectNode tool : index.tools()) {
				String name = ToolIndex.name(tool);
				if ((pinned(call, name) || call.exposedTools().contains(name)) && usable.test(tool)) {
					// a copy, as the member sent it (renamed): the kept catalogue is never edited
					tools.add(tool.deepCopy());
				}
			}
			return new VirtualLists.Page(response, catalogue.warnings());
		}).onErrorResume(RejectError.class, refused -> Mono.just(new VirtualLists.Page(refusal(call, request, refused),
				List.of())));
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
		return catalogues.catalogue(call).flatMap(catalogue -> {
			// the best the request may use: ranked past what it may not, so that a hidden tool costs it no result
			Predicate<ObjectNode> usable = catalogue.usableBy(call);
			ToolIndex index = catalogue.index();
			List<ObjectNode> found = index.search(query.read(), Math.max(1, index.tools().size()))
				.stream()
				.filter(usable)
				.limit(query.limit())
				.toList();
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
					List<ObjectNode> messages = new ArrayList<>(catalogue.warnings());
					messages.add(changed);
					messages.add(response);
					return messages;
				}));
		}).onErrorResume(RejectError.class, refused -> Mono.just(List.of(refusal(call, request, refused))));
	}

	/**
	 * The answer to {@code request} when a member's list could not be read whole ({@link CatalogueListings}: its
	 * listings are full, or it is longer than the relay reads), as a server's tool search answers; logged with the
	 * refusal's reason.
	 */
	private static ObjectNode refusal(VirtualCall call, ObjectNode request, RejectError refused) {
		String reason = refused.logReason() != null ? refused.logReason()
				: refused.data() == null ? null : refused.data().path("reason").asText(null);
		call.exchange().record().failed(RelayOutcome.REJECTED, reason);
		return JsonRpcErrors.error(request.get("id"), refused.code(), refused.getMessage(), refused.data());
	}

	/** The refusal of a call of {@code tool}, or {@code null} when the session may call it. */
	ObjectNode refusal(VirtualCall call, ObjectNode request, String tool) {
		// Without a session (2026-07-28) nothing can be remembered: any tool may be called, as for a server.
		if (call.stateless() || pinned(call, tool) || call.exposedTools().contains(tool)) {
			return null;
		}
		RejectError refused = ToolSearchPolicy.notExposed(tool);
		return JsonRpcErrors.error(request.get("id"), refused.code(), refused.getMessage(), refused.data());
	}

	private boolean pinned(VirtualCall call, String tool) {
		List<String> patterns = call.server().toolSearch().alwaysExpose();
		return !patterns.isEmpty() && new ToolNameFilter(new ToolsProperties(patterns, List.of())).offers(tool);
	}

	private static ObjectNode response(JsonNode id) {
		ObjectNode response = JsonRpcParser.mapper().createObjectNode();
		response.put("jsonrpc", "2.0");
		response.set("id", id);
		return response;
	}

}
