package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.ToolsProperties;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PolicyFacts;
import dev.mcprelay.policy.PolicyListing;
import dev.mcprelay.policy.PublishedCatalogues;
import dev.mcprelay.policy.ToolNameFilter;
import dev.mcprelay.policy.UpstreamView;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.route.VirtualMembers;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Tool search over a virtual server's merged catalogue ({@code mcp-relay.virtual-servers.<id>.tool-search}): as for a
 * server (seed 004), {@code tools/list} offers {@value ToolSearchPolicy#SEARCH_TOOL}, the tools of
 * {@code always-expose} and what this session's searches found; a search ranks the prefixed tools of every member the
 * caller may use (BM25, {@link ToolIndex}), exposes the best in the session (the session store, so every replica
 * honours it) and answers {@code notifications/tools/list_changed} before its result; a call of a tool the session does
 * not expose is refused with -32602, telling the model to search first. The merged catalogue is each member's whole
 * list as the member publishes it to the caller's view ({@link VirtualMembers#catalogue()}: never after the caller's
 * policies), read as a server's tool search reads its own ({@link MemberCatalogues}: one listing per view of a member
 * at a time, bounded among the member's listings, a list cut short refused, never searched as whole), indexed off
 * the event loops and kept per virtual server, set of usable members and each member's
 * {@link UpstreamView} of the caller (its caller and configured headers) for {@link #CATALOGUE_AGE} (at most
 * {@link #MAX_BYTES} of tools in all), and dropped when a member says its tools changed; one that lacks a member that
 * could not be asked is not kept (the client is warned, and the next search asks the member again). What a
 * {@code tools/list} or a search answers of it is decided by the policies of the request it answers (each member's
 * policies and allow/deny lists, as the member's relay decides them), as for a server's tool search: a token's scopes,
 * a claim or a request header may differ between two requests of one caller, and what is listed is what may be called.
 */
@Component
class VirtualToolSearch {

	/** How long a merged catalogue is kept without a member's {@code list_changed}. */
	static final Duration CATALOGUE_AGE = Duration.ofMinutes(5);

	private final MemberCatalogues members;

	private final SessionStore store;

	private final NameClashes clashes;

	/** The most JSON the kept catalogues hold, all together (their indexes take a few times that). */
	static final long MAX_BYTES = 16L * 1024 * 1024;

	private final Cache<List<String>, Kept> catalogues = Caffeine.newBuilder()
		.expireAfterWrite(CATALOGUE_AGE)
		.maximumWeight(MAX_BYTES)
		.<List<String>, Kept>weigher((key, kept) -> (int) Math.min(Integer.MAX_VALUE, kept.bytes()))
		.build();

	private final MemberAvailability availability;

	private final MemberViews views;

	private final Policies policies;

	VirtualToolSearch(MemberCatalogues members, SessionStore store, NameClashes clashes, RelayProperties properties,
			ListCache listCache, MemberAvailability availability, MemberViews views, Policies policies) {
		this.availability = availability;
		this.views = views;
		this.policies = policies;
		this.members = members;
		this.store = store;
		this.clashes = clashes;
		listCache.onChange((member, method) -> {
			if (method == null || method.equals("tools/list")) {
				invalidate(member);
			}
		});
		// the index's classes loaded before the first search (tool search on a virtual server is not changed live)
		if (VirtualServers.anySearches(properties)) {
			ToolIndex.warmUp();
		}
	}

	/**
	 * The client's {@code tools/list}: the search tool, the pinned tools and the session's found tools; after warnings
	 * about members left out.
	 */
	Mono<VirtualLists.Page> list(VirtualCall call, ObjectNode request) {
		return catalogue(call).map(catalogue -> {
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
		return catalogue(call).flatMap(catalogue -> {
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
		return JsonRpcErrors.error(request.get("id"), JsonRpcErrorCodes.INVALID_PARAMS, "Tool '" + tool
				+ "' is not available in this session yet. Call " + ToolSearchPolicy.SEARCH_TOOL + " with a query "
				+ "describing what you need; the tools it finds can then be called.", Map.of("reason", "not_exposed"));
	}

	/** What marks a member's view in a catalogue's key, apart from the members (no member id has a line feed). */
	private static final String VIEW = "\nview:";

	/** Drops the merged catalogues {@code member}'s tools are in: its tools changed. */
	void invalidate(String member) {
		catalogues.asMap().keySet().removeIf(key -> key.subList(1, key.size()).contains(member));
	}

	private boolean pinned(VirtualCall call, String tool) {
		List<String> patterns = call.server().toolSearch().alwaysExpose();
		return !patterns.isEmpty() && new ToolNameFilter(new ToolsProperties(patterns, List.of())).offers(tool);
	}

	/** A merged catalogue, and the warnings about the members it lacks (they could not be asked). */
	private record Catalogue(Kept kept, List<ObjectNode> warnings) {

		ToolIndex index() {
			return kept.index();
		}

		/**
		 * Which of the catalogue's tools the request of {@code call} may use: each decided by the policies of its
		 * member and the virtual server on the request's facts, as the call that would use it (arguments unknown).
		 */
		Predicate<ObjectNode> usableBy(VirtualCall call) {
			Map<String, PolicyListing> byMember = new HashMap<>();
			RequestHeaders headers = SpringRequestHeaders.of(call.exchange().requestHeaderView());
			return tool -> {
				Owner owner = kept.owners().get(ToolIndex.name(tool));
				if (owner == null) {
					return false;
				}
				PolicyFacts facts = new PolicyFacts(call.exchange().caller(), owner.member(), call.server().id(),
						"tools/call", false, null, null, null, null, null, headers);
				PolicyListing listing = byMember.computeIfAbsent(owner.member(), member -> kept.policies().listing(facts));
				return listing.lists(facts.forItem(owner.name(), PublishedCatalogues.annotationsOf(tool), null, null));
			};
		}

	}

	/** The member that published a merged tool, and its name there. */
	private record Owner(String member, String name) {
	}

	/**
	 * The merged, prefixed catalogue of the members this caller may use, indexed off the event loops. Kept only when
	 * every member answered: a catalogue that lacks one is used once, with a warning naming the member, and the next
	 * search asks that member again.
	 */
	private Mono<Catalogue> catalogue(VirtualCall call) {
		List<String> key = new ArrayList<>();
		key.add(call.server().id());
		key.addAll(call.usable());
		// each member's whole list as it publishes it to this caller's view of it: the same for every request of the
		// view (ListCache's pages are kept so too)
		call.usable().forEach(member -> key.add(VIEW + views.of(call, member).digest()));
		Kept kept = catalogues.getIfPresent(key);
		if (kept != null) {
			return Mono.just(new Catalogue(kept, List.of()));
		}
		List<ObjectNode> warnings = new CopyOnWriteArrayList<>();
		return Flux.fromIterable(call.usable())
			.flatMapSequential(member -> members.tools(call, member)
				.map(tools -> Map.entry(member, tools))
				.onErrorResume(MemberUnavailable.class, failure -> {
					warnings.add(availability.unavailable(call.server().id(), failure));
					return Mono.empty();
				}))
			.collectList()
			.flatMap(perMember -> Mono.fromCallable(() -> index(call, perMember)).subscribeOn(Schedulers.parallel()))
			.map(built -> {
				if (warnings.isEmpty()) {
					catalogues.put(key, built);
				}
				return new Catalogue(built, List.copyOf(warnings));
			});
	}

	/** An index, the member and name of each tool it holds, the policies that decide them, and its JSON size. */
	private record Kept(ToolIndex index, Map<String, Owner> owners, Policies policies, long bytes) {
	}

	private Kept index(VirtualCall call, List<Map.Entry<String, List<ObjectNode>>> perMember) {
		Map<String, ObjectNode> merged = new LinkedHashMap<>();
		Map<String, Owner> owners = new HashMap<>();
		long bytes = 0;
		for (Map.Entry<String, List<ObjectNode>> member : perMember) {
			for (ObjectNode node : member.getValue()) {
				String name = call.server().exposedName(member.getKey(), node.path("name").asText());
				if (ToolSearchPolicy.SEARCH_TOOL.equals(name)) {
					continue;
				}
				if (owners.putIfAbsent(name, new Owner(member.getKey(), node.path("name").asText())) != null) {
					clashes.report(call.server().id(), "tools", name, owners.get(name).member(), member.getKey());
					continue;
				}
				ObjectNode renamed = node.deepCopy().put("name", name);
				bytes += JsonRpcErrors.toBytes(renamed).length;
				// kept as the member sent it (renamed), every field
				merged.put(name, renamed);
			}
		}
		return new Kept(new ToolIndex(List.copyOf(merged.values())), Map.copyOf(owners), policies, bytes);
	}

	private static ObjectNode response(JsonNode id) {
		ObjectNode response = JsonRpcParser.mapper().createObjectNode();
		response.put("jsonrpc", "2.0");
		response.set("id", id);
		return response;
	}

}
