package dev.mcprelay.policy;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.proxy.ServerListChanges;
import dev.mcprelay.proxy.UpstreamLister;
import reactor.core.publisher.Mono;

/**
 * The tools and prompts each server published, per view of it ({@link UpstreamView}), as far as policies need them: a
 * tool's {@code annotations}, so that a rule that reads them ({@code mcp.tool.annotations.readOnlyHint}) decides a
 * call from the definition the server published to the caller's own view, never from what it told another caller, nor
 * from anything the caller sends; and which names it published, so that a name it did not publish is answered as
 * unknown by the relay, as a refused one is. Kept from every {@code tools/list} and {@code prompts/list} answer that
 * passes the relay for a server such a rule governs (the latest wins), forgotten when the server says the list
 * changed, and, for a name the view has not seen, read by listing the server's list in the caller's request
 * ({@link Lister}) page after page until one names it (review 43h F-3), one such listing per view and name at a time;
 * a name no page names is listed for whole, once per catalogue (until the server says the list changed). A name the
 * relay still does not know is {@code empty}: the server did not publish it, and the caller answers as the server
 * would. A listing that fails is {@link Unavailable}: the caller cannot decide, and refuses (fails closed); it is
 * logged at WARN once a minute per server and list. So is a name a catalogue cut short lacks (a list longer than
 * {@link UpstreamLister#MAX_PAGES} pages or {@value PublishedItems#MAX_ITEMS} items): it is kept as listed (not
 * listed again for every name), but what it lacks may be past the cut.
 *
 * <p>Each {@code list_changed} begins a new generation of that list of that server: a listing, or a client's list,
 * that began before it is never kept (it may hold the catalogue from before the change; a call that waited for such
 * a listing is decided from it, as one decided just before the change would be, and the next call lists again). A
 * list answer kept must have its request at hand ({@link #listing}); one without (a GET stream's) is not kept.
 *
 * <p>What a rule that reads a tool's annotations decides from has a bounded age: a server whose tools change without
 * a stream to say so on (no client holds its GET stream open, or the server says nothing) would otherwise have its
 * calls decided from its old definitions until a client listed again. A definition older than the server's
 * {@code tools.annotations-max-age} (since the relay last saw it published, by its own listing or a client's list),
 * and a catalogue listed whole longer ago than that for a name it lacks, are listed again first, in the caller's
 * view, one listing however many calls wait for it ({@link PublishedItems#list}), bounded as every listing is
 * ({@link CatalogueRelisting}); a listing that fails refuses the call ({@link Unavailable}), never decides it from the old
 * definition. A rule that reads only names decides from what is kept, however old: the server answers a name it no
 * longer has.
 *
 * <p>At most {@value PublishedItems#MAX_ITEMS} items per view and list, and {@value #MAX_KEPT} over all (an item
 * weighs one more per argument it declares for {@code Mcp-Param-*} headers), are kept; the least used forgotten first.
 */
public class PublishedCatalogues implements ServerListChanges {

	/** The most items of one list the relay keeps for a view (listings are cut at {@link UpstreamLister#MAX_PAGES} too). */
	public static final int MAX_ITEMS = PublishedItems.MAX_ITEMS;

	/** The list of a server's tools, as the list methods name it. */
	public static final String TOOLS = "tools/list";

	/** The list methods whose items are kept: {@code tools/list}, {@code prompts/list}. */
	public static final Set<String> LISTS = Set.of("tools/list", "prompts/list");

	/** The most items kept over every list of every view of every server. */
	static final long MAX_KEPT = 100_000;

	/** Marks a list answer the relay composed itself, in the request's attributes. */
	private static final String COMPOSED = PublishedCatalogues.class.getName() + ".composed";

	/** Marks, in a list request's attributes, the generation of its list when it was sent. */
	private static final String SENT_IN = PublishedCatalogues.class.getName() + ".sentIn";

	/** The current generation of each server's list (server and list method): one more for each list_changed. */
	private final Map<List<String>, AtomicLong> generations = new ConcurrentHashMap<>();

	/** One list of one view. */
	private record Key(UpstreamView view, String list) {
	}

	private final Cache<Key, PublishedItems> catalogues = Caffeine.newBuilder()
		.maximumWeight(MAX_KEPT)
		.weigher((Key key, PublishedItems items) -> (int) Math.min(Integer.MAX_VALUE, 1 + items.weight()))
		.executor(Runnable::run)
		.build();

	/** How old what is kept may be, and how long listing it again may take, per request snapshot. */
	private final CatalogueFreshness freshness;

	/** Lists a view again, bounded. */
	private final CatalogueRelisting relisting;

	/** The callers' views where their requests cannot change them, made once ({@link CallerViews}). */
	private final CallerViews views = new CallerViews();

	/** The properties of the server a request addresses, in the request's own snapshot ({@code null}: unknown). */
	private final Function<CallContext, ServerProperties> servers;

	/**
	 * @param lister how the relay lists one of a server's lists whole in a caller's request
	 * @param servers the properties of the server a request addresses, as the request's own configuration snapshot
	 * configures it ({@code null} for one it does not know): what tells its views apart, and how old the definitions
	 * policies decide from may be; never the current snapshot's, so that an answer of a server's old upstream that
	 * lands after a reload moved the server is kept under the old upstream's view
	 */
	public PublishedCatalogues(Lister lister, Function<CallContext, ServerProperties> servers) {
		this(lister, servers, new ServerListings());
	}

	/**
	 * @param listings the bound on the listings of each server, shared with every feature that lists one
	 */
	public PublishedCatalogues(Lister lister, Function<CallContext, ServerProperties> servers, ServerListings listings) {
		this(lister, servers, listings, System::nanoTime);
	}

	/** @param clock the time in nanoseconds, as {@link System#nanoTime()} tells it: for tests that age definitions */
	PublishedCatalogues(Lister lister, Function<CallContext, ServerProperties> servers, ServerListings listings,
			LongSupplier clock) {
		this.servers = servers;
		this.freshness = new CatalogueFreshness(servers, clock);
		this.relisting = new CatalogueRelisting(lister, listings, freshness);
	}

	/** Lists one list of the server a request addresses whole, in that request (its session, caller and headers). */
	@FunctionalInterface
	public interface Lister {

		/**
		 * The items of the list {@code list} ({@code tools/list}, {@code prompts/list}) of the server {@code context}
		 * addresses, as the server sent them, page after page until one names {@code until} ({@code null}: every page),
		 * and whether that is the whole list (one cut at {@link UpstreamLister#MAX_PAGES} pages, or stopped at
		 * {@code until}'s, is not); bounded in time by the lister, an error when the server cannot be asked.
		 */
		Mono<UpstreamLister.Listed> listAll(CallContext context, String list, String until);

	}

	/**
	 * Keeps {@code items}, entries of an answer to the list {@code list} ({@code tools/list}, {@code prompts/list}) in
	 * the request of {@code context}; nothing of an answer the relay composed itself ({@link #composedByRelay}).
	 */
	public void published(CallContext context, String list, List<JsonNode> items) {
		if (items.isEmpty() || context.attributes().get(COMPOSED) != null
				|| !(context.attributes().get(SENT_IN + list) instanceof Long sentIn)) {
			return;
		}
		AtomicLong generation = generation(context.server(), list);
		long now = freshness.now();
		// kept, and weighed again, only while no list_changed came since the list was sent: changed() counts the
		// generation before it forgets, so what this puts after a change is forgotten, or never put
		catalogues.asMap().compute(new Key(viewOf(context), list), (key, kept) -> {
			if (sentIn != generation.get()) {
				return kept;
			}
			PublishedItems filled = kept == null ? new PublishedItems() : kept;
			Set<String> named = new HashSet<>();
			for (JsonNode item : items) {
				if (PublishedItems.firstOfItsName(item, named)) {
					filled.published(item, now);
				}
			}
			return filled;
		});
	}

	/**
	 * A request for the list {@code list} ({@code tools/list}, {@code prompts/list}) is being sent in the request of
	 * {@code context}: the generation it is sent in is noted, so that its answer is kept only when no
	 * {@code list_changed} came meanwhile.
	 */
	public void listing(CallContext context, String list) {
		context.attributes().put(SENT_IN + list, generation(context.server(), list).get());
	}

	private AtomicLong generation(String server, String list) {
		return generations.computeIfAbsent(List.of(server, list), any -> new AtomicLong());
	}

	/** How many times {@code server} was heard to say its list {@code list} changed ({@link #changed}). */
	long changesHeard(String server, String list) {
		return generation(server, list).get();
	}

	/**
	 * Marks the list answer of the request of {@code context} as one the relay composed (tool search's), not as the
	 * server published it to the caller's view: {@link #published} keeps nothing of it.
	 */
	public static void composedByRelay(CallContext context) {
		context.attributes().put(COMPOSED, Boolean.TRUE);
	}

	/**
	 * {@code server} said its list {@code list} changed: what was kept of it, in every view, is forgotten. Heard on
	 * every stream of every server ({@link ServerListChanges}), whatever governs it.
	 */
	@Override
	public void changed(String server, String list) {
		generation(server, list).incrementAndGet();
		catalogues.asMap().keySet().removeIf(key -> key.view().server().equals(server) && key.list().equals(list));
	}

	/** {@link #find(CallContext, String, String, boolean)} for a rule that reads no annotations: of any age. */
	public Mono<Optional<Map<String, Object>>> find(CallContext context, String list, String name) {
		return find(context, list, name, false);
	}

	/**
	 * The definition of {@code name} in the list {@code list} of the server {@code context} addresses, as it published
	 * it to the caller's view (a tool's annotations; for a prompt, empty): as kept, or read now by listing the list in
	 * the caller's request when the view's catalogue was not listed whole yet, or, where {@code annotations} (a rule
	 * reads them), when what is kept is older than the server's {@code tools.annotations-max-age}; empty when the
	 * server did not publish it; {@link Unavailable} when the list could not be listed.
	 */
	public Mono<Optional<Map<String, Object>>> find(CallContext context, String list, String name,
			boolean annotations) {
		return definition(context, list, name, annotations)
			.map(found -> found.map(PublishedItems.Definition::annotations));
	}

	/**
	 * What is kept of {@code name} in the caller's view of {@code list}, with no listing: its definition, of any age;
	 * empty when the view's catalogue was listed whole (not cut) without it no longer ago than the server's
	 * {@code tools.annotations-max-age}; {@code null} when the view never saw it, or saw only an older catalogue
	 * without it (a tool the server added since is not known to declare nothing: review 43j N-8).
	 */
	Optional<PublishedItems.Definition> keptOfAnyAge(CallContext context, String list, String name) {
		PublishedItems kept = catalogues.getIfPresent(new Key(viewOf(context), list));
		PublishedItems.Definition definition = kept == null ? null : kept.definition(name);
		if (definition != null) {
			return Optional.of(definition);
		}
		return kept != null && kept.complete() && !kept.cut()
				&& freshness.young(kept.listedAt(), freshness.maxAgeNanos(context, true)) ? Optional.empty() : null;
	}

	/**
	 * The part {@code 1/divisor} of the bound a request to the server {@code context} addresses runs under (its
	 * {@code timeouts.non-streaming}), as its own snapshot configures it.
	 */
	java.time.Duration shareOfRequestBound(CallContext context, int divisor) {
		return freshness.shareOfRequestBound(context, divisor);
	}

	/** {@link #find}, the whole definition kept ({@link PublishedItems.Definition}). */
	Mono<Optional<PublishedItems.Definition>> definition(CallContext context, String list, String name,
			boolean annotations) {
		Key key = new Key(viewOf(context), list);
		PublishedItems kept = catalogues.get(key, any -> new PublishedItems());
		PublishedItems.Definition known = kept.definition(name);
		long maxAge = freshness.maxAgeNanos(context, annotations);
		if (known != null ? freshness.young(known.seenAt(), maxAge)
				: kept.complete() && freshness.young(kept.listedAt(), maxAge)) {
			return kept.found(context.server(), list, name);
		}
		// an old definition is listed again whole (the catalogue's refresh); a name not seen is only sought
		return listed(context, list, key, kept, known != null ? null : name)
			.flatMap(listed -> listed.found(context.server(), list, name));
	}

	/**
	 * The definitions of {@code names} in the list {@code list} of the server {@code context} addresses, each as
	 * {@link #find} answers it for a request naming it, with the same freshness: from what is kept where {@link #known}
	 * answers for every name, else after one listing of the caller's view (shared with every request that waits for
	 * it). A name the server did not publish to the view is absent, and so is one a catalogue cut short lacks (a
	 * request naming it is refused): what a feature offers from a copy of its own of the server's list (tool search's
	 * index) is offered only as a request naming it would be decided ({@link ToolOffers}). {@link Unavailable} when the
	 * list could not be listed.
	 */
	public Mono<Map<String, Map<String, Object>>> findAll(CallContext context, String list, Collection<String> names,
			boolean annotations) {
		Map<String, Map<String, Object>> found = new HashMap<>();
		for (String name : names) {
			Optional<Map<String, Object>> known = known(context, list, name, annotations);
			if (known == null) {
				Key key = new Key(viewOf(context), list);
				return listed(context, list, key, catalogues.get(key, any -> new PublishedItems()), null).map(listed -> {
					Map<String, Map<String, Object>> relisted = new HashMap<>();
					for (String each : names) {
						PublishedItems.Definition definition = listed.definition(each);
						if (definition != null) {
							relisted.put(each, definition.annotations());
						}
					}
					return relisted;
				});
			}
			known.ifPresent(definition -> found.put(name, definition));
		}
		return Mono.just(found);
	}

	/**
	 * {@code kept}, the caller's view of {@code list} (kept under {@code key}), once listed again in the caller's
	 * request (or the listing in flight joined), whole or, where {@code sought} is not {@code null}, only until a page
	 * names it ({@link CatalogueRelisting#seek}), within {@link CatalogueFreshness#listingBound}: strictly inside
	 * the bound the request runs under, so that a listing that hangs refuses the request as undecidable
	 * ({@link Unavailable}, logged) rather than leaving it to the request's own timeout.
	 */
	private Mono<PublishedItems> listed(CallContext context, String list, Key key, PublishedItems kept, String sought) {
		Mono<Void> listing = sought == null ? relisting.relist(context, list, kept)
				: relisting.seek(context, list, sought, kept);
		return listing.then(Mono.fromSupplier(() -> {
			// weighed again while kept; never put back once a list_changed forgot it (it may predate the change)
			catalogues.asMap().computeIfPresent(key, (same, current) -> current);
			return kept;
		}));
	}

	/**
	 * Lists the caller's view of {@code list} again without anyone waiting for it, for the audit-mode rules that decide
	 * from what is kept ({@link #known} of any age) rather than wait: where {@code name} is not known, or, with
	 * {@code annotations}, its definition is older than the server's {@code tools.annotations-max-age}. Joins the
	 * listing in flight, and begins at most one per view and list each listing bound
	 * ({@link CatalogueFreshness#listingBound}), so that calls never list each (a server whose list hangs or fails
	 * is asked once a bound); bounded as every listing is, its failure logged ({@link CatalogueRelisting}) and
	 * otherwise dropped. Nothing is done when what is kept is young enough.
	 */
	public void refreshInBackground(CallContext context, String list, String name, boolean annotations) {
		if (known(context, list, name, annotations) != null) {
			return;
		}
		Key key = new Key(viewOf(context), list);
		PublishedItems kept = catalogues.get(key, any -> new PublishedItems());
		if (kept.mayListInBackground(freshness.now(), freshness.listingBound(context).toNanos())) {
			listed(context, list, key, kept, null).subscribe(null, failure -> {
			});
		}
	}

	/** {@link #known(CallContext, String, String, boolean)} for a rule that reads no annotations: of any age. */
	public Optional<Map<String, Object>> known(CallContext context, String list, String name) {
		return known(context, list, name, false);
	}

	/**
	 * What {@link #find} answers at once, from what is kept of the caller's view, with no listing: the definition of
	 * {@code name}, or empty when the view's catalogue was listed whole (not cut) without it; {@code null} when it
	 * cannot be answered without {@link #find} (a name the view has not seen in a catalogue not listed whole, or lacks
	 * in one cut short; where {@code annotations}, a definition or a listing older than the server's
	 * {@code tools.annotations-max-age}). A request decided from it costs no {@code Mono}: the common case, a call of a
	 * tool the view listed.
	 */
	public Optional<Map<String, Object>> known(CallContext context, String list, String name, boolean annotations) {
		PublishedItems kept = catalogues.getIfPresent(new Key(viewOf(context), list));
		if (kept == null) {
			return null;
		}
		long maxAge = freshness.maxAgeNanos(context, annotations);
		PublishedItems.Definition definition = kept.definition(name);
		if (definition != null) {
			return freshness.young(definition.seenAt(), maxAge) ? Optional.of(definition.annotations()) : null;
		}
		return kept.complete() && !kept.cut() && freshness.young(kept.listedAt(), maxAge) ? Optional.empty() : null;
	}

	/**
	 * The list a request needs to be decided could not be listed: the policies cannot decide it, and it is refused
	 * (fails closed), not answered as naming what the server did not publish.
	 */
	public static final class Unavailable extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final String why;

		private final boolean hung;

		Unavailable(String server, String list, String why) {
			this(server, list, why, false);
		}

		private Unavailable(String server, String list, String why, boolean hung) {
			super("The " + list + " of server '" + server + "' " + why, null, false, false);
			this.why = why;
			this.hung = hung;
		}

		/**
		 * The list {@code list} of {@code server} did not answer the relay's listing within its bound ({@code why}
		 * says how long): the server's silence, whoever's request the listing was made in, unlike a failure the
		 * request's own session or headers may have caused (a 404 for a session the server forgot, a 400, a 500).
		 */
		static Unavailable hung(String server, String list, String why) {
			return new Unavailable(server, list, why, true);
		}

		/** Whether the listing hung ({@link #hung(String, String, String)}): what a view remembers of a failure. */
		boolean hung() {
			return hung;
		}

		/** Why the list cannot decide: it {@code is unavailable}, or {@code is longer than ...}. */
		public String why() {
			return why;
		}

		/**
		 * The refusal of a request to {@code server} the policies cannot decide, since its list {@code list} that they
		 * read could not be listed ({@code why}): -32603 with {@code data.reason} {@code policy_undecidable} (fails
		 * closed), never the answer for a name that does not exist. The client is told that the server's list is
		 * unavailable, not that a policy reads it; the access log names {@code policy}, the first rule that needed it.
		 */
		public static RejectError refusal(String server, String list, String why, String policy) {
			return new RejectError(JsonRpcErrorCodes.INTERNAL_ERROR, "The relay cannot answer this request now: the "
					+ list + " of server '" + server + "' " + why, Map.of("reason", UNDECIDABLE))
				.withLogReason(UNDECIDABLE, policy);
		}

		/** The reason of a request the policies cannot decide. */
		public static final String UNDECIDABLE = "policy_undecidable";

	}

	private UpstreamView viewOf(CallContext context) {
		return views.of(context, servers.apply(context));
	}

	/** A tool's published {@code annotations}, as CEL values; empty when it has none (and for a prompt). */
	public static Map<String, Object> annotationsOf(JsonNode item) {
		return CelValues.fieldsOf(item.get("annotations"));
	}

}
