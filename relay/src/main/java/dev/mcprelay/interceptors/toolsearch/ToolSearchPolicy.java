package dev.mcprelay.interceptors.toolsearch;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.ListChangedNotification;
import dev.mcprelay.api.ListRequest;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.ServerNotification;
import dev.mcprelay.api.ServerNotificationInterceptor;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.api.ToolsListRequestInterceptor;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.intercept.ConfiguredInterceptor;
import dev.mcprelay.interceptors.PolicyEnforcement;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PolicyCompiler;
import dev.mcprelay.policy.PublishedCatalogues;
import dev.mcprelay.policy.RelayOwnTools;
import dev.mcprelay.policy.ServerListings;
import dev.mcprelay.policy.ToolOffers;
import dev.mcprelay.policy.UpstreamView;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamLister;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.session.SessionState;
import dev.mcprelay.session.SessionStore;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * Tool search, {@code mcp-relay.servers.<id>.tool-search} (seed 004): a client sees a small entry point instead of the
 * whole catalogue.
 * <ul>
 * <li>{@code tools/list} answers {@value #SEARCH_TOOL}, the tools of {@code always-expose}, and the tools this
 * session's searches found, from the server's whole catalogue (every page; {@link ToolCatalogue}), each exactly as the
 * server listed it;</li>
 * <li>a call of {@value #SEARCH_TOOL} ranks the catalogue with BM25 ({@link ToolIndex}), adds the best matches to the
 * session's exposed tools, and answers, without the upstream, with {@code notifications/tools/list_changed} and then
 * the result (a text summary, and {@code structuredContent.tools} with each tool's name, title and description): as an
 * SSE stream in that order when the client accepts one, else the result alone as JSON;</li>
 * <li>a call of a tool the session does not expose is refused with -32602, telling the model to search first.</li>
 * </ul>
 * The caller's policies and the tool allow/deny lists ({@link Policies}) apply to everything search lists and returns,
 * each tool decided as a call of it would be, from the definition the server published to the caller's view as the
 * policies keep it and with the same freshness ({@link ToolOffers}: never from the index's copy, which may be older),
 * and the reserved-prefix rule to every schema listed (it runs after this). The catalogue is the server's whole as it
 * publishes it to the caller's view ({@link UpstreamView}: the caller, the headers configured or set for it), one per
 * view, since a server may publish other tools, or other definitions of one, to each caller; each caller is shown
 * only what it may use of its own view's, never another's. The catalogues are kept under the one bound in bytes of
 * every catalogue tool search keeps ({@link KeptCatalogues}), the least recently used forgotten first (and listed
 * again when needed). What this answers to a {@code tools/list}
 * is composed by the relay, and never kept by the policies as what the server published
 * ({@link PublishedCatalogues#composedByRelay}). The exposed tools live in the {@link SessionStore} under the session
 * id the client holds ({@link ExposedTools}),
 * recorded when its {@code initialize} is answered: a session the store does not know gets 404 (the client
 * initializes again), and a store that does not answer gets 503. Requests without a session (2026-07-28) list the
 * entry point and may call any tool. Servers without tool search are not touched.
 *
 * <p>Which servers search, and with which settings, is a part of each configuration snapshot ({@link SnapshotPart}):
 * a request reads its own snapshot's ({@link CallConfiguration}), so a reload that adds a server with tool search
 * serves it with search from its next request, and one that changes a server's settings (its tool search, or any
 * other) rebuilds its index from its next listing; what sessions exposed stays in the session store.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/tools">MCP tools</a>
 */
@Component
public class ToolSearchPolicy implements ToolsListRequestInterceptor, ToolsListResponseInterceptor,
		ToolsCallRequestInterceptor, ServerNotificationInterceptor, RelayOwnTools, ConfiguredInterceptor, Ordered,
		SnapshotPart<Map<String, SearchedServer>> {

	/** The policy's name, as the access log's {@code interceptor} says it, on a server and a virtual server alike. */
	public static final String NAME = "tool-search";

	/** The tool the relay offers in place of the catalogue. */
	public static final String SEARCH_TOOL = "search_available_tools";

	/**
	 * Just before the argument policy and the policies: the catalogue is made of the server's own lists, never of one
	 * caller's view of them, and the policies then run on what this answers (its own tool aside); the argument policy
	 * cleans the schemas listed and injects into the call of the tool this lets through, which the policies then
	 * decide.
	 */
	public static final int ORDER = PolicyEnforcement.ORDER - 2;

	private static final String STATE = ToolSearchPolicy.class.getName() + ".state";

	private static final String GENERATION = ToolSearchPolicy.class.getName() + ".generation";

	private final UpstreamRegistry upstreams;

	private final MeterRegistry registry;

	/** The servers a request searches: its snapshot's. */
	private final Function<CallContext, Map<String, SearchedServer>> serversOf;

	/** The servers of the current snapshot, for the questions asked with no request at hand. */
	private final Supplier<Map<String, SearchedServer>> current;

	private final UpstreamLister lister;

	private final ExposedTools exposedTools;

	/** The policies of each request's configuration snapshot. */
	private final PolicyCompiler policies;

	private final ServerListings listings;

	private final KeptCatalogues kept;

	/** The definitions each tool search offers is decided from: the policies' ({@link ToolOffers}). */
	private final PublishedCatalogues published;

	public ToolSearchPolicy(UpstreamRegistry upstreams, UpstreamLister lister, SessionStore store,
			MeterRegistry registry, PolicyCompiler policies, ServerListings listings, KeptCatalogues kept,
			PublishedCatalogues published, ObjectProvider<LiveConfiguration> live) {
		this.published = published;
		this.listings = listings;
		this.kept = kept;
		this.upstreams = upstreams;
		this.lister = lister;
		this.exposedTools = new ExposedTools(store);
		this.policies = policies;
		this.registry = registry;
		this.current = () -> of(live.getObject().current());
		this.serversOf = context -> {
			ConfigurationSnapshot snapshot = CallConfiguration.of(context);
			return snapshot != null ? of(snapshot) : current.get();
		};
	}

	@Override
	public String partName() {
		return "tool search";
	}

	/**
	 * The servers of the snapshot that offer their tools through search: an unchanged server's previous
	 * {@link SearchedServer} (its catalogues and indexes, its meters), a new one for a server added or changed in any
	 * way (its index built anew from its next listing; the meters of its id kept).
	 */
	@Override
	public Map<String, SearchedServer> compile(SnapshotCompilation compilation) {
		Map<String, SearchedServer> previous = compilation.previous(this);
		Map<String, SearchedServer> servers = new HashMap<>();
		compilation.properties().servers().forEach((id, server) -> {
			if (server == null || !server.toolSearch().enabled()) {
				return;
			}
			SearchedServer before = previous == null ? null : previous.get(id);
			servers.put(id, before != null && before.properties().equals(server) ? before
					: new SearchedServer(id, server,
							before != null ? before.meters() : new ToolSearchMeters(registry, id), kept));
		});
		// the index's classes loaded here, off the event loops, before a new server's first search or listing
		if (servers.values().stream().anyMatch(server -> previous == null || previous.get(server.id()) != server)) {
			ToolIndex.warmUp();
		}
		return Collections.unmodifiableMap(servers);
	}

	/** Drops the catalogues of every server the new snapshot changed, removed, or no longer searches. */
	@Override
	public void replaced(Map<String, SearchedServer> previous, Map<String, SearchedServer> next) {
		previous.forEach((id, server) -> {
			if (next.get(id) != server) {
				server.invalidate();
			}
		});
	}

	/**
	 * A server that searches in the snapshot; one that does not has no tool-search interceptor there, and gets it from
	 * the first request of a snapshot in which it searches.
	 */
	@Override
	public boolean appliesTo(SnapshotCompilation compilation, String server, Stage<?> stage) {
		return compilation.part(this).containsKey(server);
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	/** Whether {@code server} offers its tools through search, as the current configuration says. */
	public boolean searches(String server) {
		return current.get().containsKey(server);
	}

	/** {@value #SEARCH_TOOL}, on a server that offers its tools through search in {@code snapshot}. */
	@Override
	public boolean isRelayOwn(ConfigurationSnapshot snapshot, String server, String tool) {
		return SEARCH_TOOL.equals(tool) && (snapshot != null ? of(snapshot) : current.get()).containsKey(server);
	}

	@Override
	public Mono<Outcome> interceptToolsList(ListRequest request) {
		SearchedServer server = serversOf.apply(request.context()).get(request.server());
		if (server == null) {
			return Outcome.proceed();
		}
		// an answer to a list sent before a list_changed is never kept as the catalogue
		request.context().attributes().put(GENERATION, server.generation().get());
		// the session must exist before anything goes upstream; its state is kept for the response stage
		return exposedTools.of(request.context()).doOnNext(state -> request.context().attributes().put(STATE, state))
			.then(Outcome.proceed());
	}

	@Override
	public Mono<Outcome> interceptToolsListResponse(ToolsListResponse list) {
		SearchedServer server = serversOf.apply(list.context()).get(list.server());
		if (server == null) {
			return Outcome.proceed();
		}
		Set<String> exposed = list.context().attributes().get(STATE) instanceof SessionState state
				? state.exposedTools() : Set.of();
		ObjectNode result = list.result();
		boolean wholeCatalogue = list.nextCursor() == null && list.request().params().path("cursor").isMissingNode();
		// an answer with no request of this exchange at hand (a GET stream) may predate a list_changed: never kept
		long sentIn = list.context().attributes().get(GENERATION) instanceof Long generation ? generation : -1;
		ToolCatalogue<ToolIndex> view = server.catalogue(list.context());
		Policies policies = this.policies.of(list.context());
		Mono<ToolIndex> catalogue;
		if (wholeCatalogue) {
			List<ObjectNode> listed = ToolIndex.toolsAmong(result.path("tools"));
			// what the server published to the caller's view, as a client's list passing through is kept
			keptAsPublished(policies, list.context(), listed);
			catalogue = view.update(listed, sentIn);
		}
		else {
			catalogue = view.get(() -> listAll(list.context(), server));
		}
		return catalogue.flatMap(index -> {
			List<ObjectNode> shown = index.tools().stream().filter(tool -> server.alwaysExposed(ToolIndex.name(tool))
					|| exposed.contains(ToolIndex.name(tool))).toList();
			return ToolOffers.offerable(policies, published, list.context(), shown);
		}).flatMap(offered -> {
			ArrayNode tools = result.putArray("tools");
			tools.add(ToolSearchAnswers.searchTool(server.settings().maxResults()));
			// copies: later interceptors edit what is listed, never the catalogue
			offered.forEach(tool -> tools.add(tool.deepCopy()));
			result.remove("nextCursor");
			list.replaceResult(result);
			PublishedCatalogues.composedByRelay(list.context());
			return Outcome.proceed();
		});
	}

	/**
	 * Keeps {@code tools}, the whole list the server published to the caller's view, as the policies keep a list that
	 * passes the relay ({@link PublishedCatalogues#published}), where a rule reads the tool: what search offers is
	 * decided from it ({@link ToolOffers}), without a listing of the policies' own. Call before the list is noted as
	 * composed by the relay.
	 */
	private void keptAsPublished(Policies policies, CallContext context, List<? extends JsonNode> tools) {
		if (policies.readsTool(context.server(), context.virtualServer())) {
			published.published(context, PublishedCatalogues.TOOLS, List.<JsonNode>copyOf(tools));
		}
	}

	@Override
	public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
		SearchedServer server = serversOf.apply(call.context()).get(call.server());
		if (server == null) {
			return Outcome.proceed();
		}
		if (SEARCH_TOOL.equals(call.toolName())) {
			return search(call, server);
		}
		if (server.alwaysExposed(call.toolName())) {
			return Outcome.proceed();
		}
		return exposedTools.of(call.context()).map(state -> state.exposedTools().contains(call.toolName()))
			.defaultIfEmpty(true)
			.flatMap(callable -> callable ? Outcome.proceed() : Outcome.reject(notExposed(call.toolName())));
	}

	/**
	 * The refusal of a call of {@code tool}, which this session's searches have not found yet: -32602 with
	 * {@code data.reason} {@code not_exposed}, the same on a server and on a virtual server.
	 */
	public static RejectError notExposed(String tool) {
		return new RejectError(JsonRpcErrorCodes.INVALID_PARAMS, "Tool '" + tool + "' is not available in this "
				+ "session yet. Call " + SEARCH_TOOL + " with a query describing what you need; the tools it finds can "
				+ "then be called.", Map.of("reason", "not_exposed"));
	}

	@Override
	public Mono<Outcome> interceptServerNotification(ServerNotification notification) {
		SearchedServer server = serversOf.apply(notification.context()).get(notification.server());
		if (server != null && notification instanceof ListChangedNotification changed && "tools".equals(changed.list())) {
			server.invalidate();
		}
		return Outcome.proceed();
	}

	/** Answers a search: the best matches, now exposed in the session, after a list_changed notification. */
	private Mono<Outcome> search(ToolsCallRequest call, SearchedServer server) {
		SearchQuery query;
		try {
			query = SearchQuery.of(call.params().path("arguments"), server.settings().maxResults());
		}
		catch (RejectError refused) {
			return Outcome.reject(refused);
		}
		return exposedTools.of(call.context()).map(SessionState::exposedTools)
			.defaultIfEmpty(Set.of())
			.flatMap(before -> server.catalogue(call.context()).get(() -> listAll(call.context(), server)).flatMap(index -> {
				// the best the caller may use: ranked past what it may not, so that a hidden tool costs it no result;
				// each decided as its call would be, from what the server publishes now (not the index's copy)
				List<ObjectNode> ranked = index.search(query.read(), Math.max(1, index.tools().size()))
					.stream()
					.filter(tool -> server.offers(ToolIndex.name(tool)))
					.toList();
				return ToolOffers.offerable(policies.of(call.context()), published, call.context(), ranked);
			}).flatMap(offerable -> {
				List<ObjectNode> found = offerable.stream().limit(query.limit()).toList();
				List<String> names = found.stream().map(ToolIndex::name).toList();
				Set<String> exposedNow = new LinkedHashSet<>(before);
				exposedNow.addAll(names);
				return exposedTools.expose(call.context(), names).then(Mono.defer(() -> {
					server.meters().searched(found.size(), exposedNow.size());
					return Outcome.respond(List.of(Outcome.notification("notifications/tools/list_changed", null)),
							ToolSearchAnswers.result(query.text(), found));
				}));
			}));
	}

	/**
	 * The whole catalogue, listed upstream in the client's session with the upstream headers the interceptors set for
	 * this request ({@code context().upstreamHeaders()}), each tool as the server sent it: the catalogue of the
	 * caller's view, of which it is shown only what its policies let it use. Bounded and cut as the policies' listings
	 * are ({@link CatalogueListings}), as a virtual server's search lists its members.
	 */
	private Mono<List<ObjectNode>> listAll(CallContext context, SearchedServer server) {
		Upstream upstream = upstreams.addressedBy(context);
		Policies policies = this.policies.of(context);
		return CatalogueListings
			.tools(listings, context.server(), context.caller(), upstream.nonStreamingTimeout(), () -> {
				// kept by the policies too, as what the server published to the caller's view ({@link ToolOffers})
				published.listing(context, PublishedCatalogues.TOOLS);
				return lister.list(upstream, "tools/list", SpringRequestHeaders.toHttpHeaders(context.headers()),
						context.caller(), context.upstreamHeaders())
					.doOnNext(listed -> keptAsPublished(policies, context, listed.items()));
			})
			.map(tools -> tools.stream().filter(tool -> server.offers(ToolIndex.name(tool))).toList());
	}

}
