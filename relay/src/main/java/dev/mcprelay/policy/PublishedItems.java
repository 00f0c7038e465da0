package dev.mcprelay.policy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.proxy.ParameterHeaders;
import dev.mcprelay.proxy.UpstreamLister;
import reactor.core.publisher.Mono;

/**
 * The items of one list (tools, prompts) a server published to one view of it ({@link UpstreamView}), as far as
 * policies and the relay's header checks need them: each item's name, and a tool's annotations and mirrored arguments. Filled from every list of the view that passes the
 * relay (an item's latest definition wins), and by the relay listing the whole list itself ({@link #list}), or its
 * pages up to the one that names an item sought ({@link #seek}): one listing at a time of the whole list, and of each
 * name sought, which every call that needs it meanwhile waits for (fifty calls of a name not seen yet start one
 * listing, not fifty). Once listed whole, the catalogue is {@link #complete()}: a name it lacks is one the server did
 * not publish, and is not listed for again; it lives until the server says the list changed (then a new one is
 * begun). A listing cut short ({@link #cut()}: more pages or items than the relay reads) is complete too, so that it
 * is not listed again for every name, but what it lacks may be past the cut. Each definition is kept with when the
 * relay last saw it published ({@link Definition#seenAt()}, a {@link System#nanoTime()}), and the catalogue with when
 * the relay last listed it whole ({@link #listedAt()}), so that a caller can tell how old what it decides from is.
 * Thread-safe.
 */
final class PublishedItems {

	/** The most items kept for one list of one view; past it, what was kept is forgotten and read again. */
	static final int MAX_ITEMS = 10_000;

	/**
	 * What the server published of one item (a tool's annotations, and the arguments it declares for mirroring into
	 * {@code Mcp-Param-*} headers; both empty for a prompt), and the {@link System#nanoTime()} at which the relay last
	 * saw it published.
	 */
	record Definition(Map<String, Object> annotations, Map<String, ParameterHeaders.Mirrored> headers, long seenAt) {

		/** The definition of {@code item}, one entry of a list, seen at {@code now}. */
		static Definition of(JsonNode item, long now) {
			return new Definition(PublishedCatalogues.annotationsOf(item), ParameterHeaders.declaredBy(item), now);
		}

	}

	private volatile Map<String, Definition> items = new ConcurrentHashMap<>();

	/** When the relay last listed the whole catalogue ({@link System#nanoTime()}); meaningless until complete. */
	private volatile long listedAt;

	/** Whether the relay listed the whole catalogue, so that what it lacks the server did not publish. */
	private volatile boolean complete;

	/** Whether the relay's listing was cut short: what it lacks may be past the cut. */
	private volatile boolean cut;

	/** The listings in flight: the whole list's under {@link #WHOLE}, those that seek one name under that name. */
	private final Map<Object, Mono<Void>> inFlight = new ConcurrentHashMap<>();

	/** Where the listing of the whole list in flight ({@link #list}) is found in {@link #inFlight}. */
	private static final Object WHOLE = new Object();

	/** When a listing was last begun in the background ({@link #mayListInBackground}); {@link #NEVER} before. */
	private final AtomicLong listedInBackgroundAt = new AtomicLong(NEVER);

	private static final long NEVER = Long.MIN_VALUE;

	/** When the last listing failed ({@link #list}); {@link #NEVER} before, or once one answered since. */
	private final AtomicLong failedAt = new AtomicLong(NEVER);

	/** Keeps the definition of {@code item}, one entry of a list the server gave this view, seen at {@code now}. */
	void published(JsonNode item, long now) {
		JsonNode name = item.get("name");
		if (name == null || !name.isTextual()) {
			return;
		}
		Map<String, Definition> kept = items;
		if (kept.size() >= MAX_ITEMS && !kept.containsKey(name.textValue())) {
			kept = new ConcurrentHashMap<>();
			items = kept;
			complete = false;
		}
		kept.put(name.textValue(), Definition.of(item, now));
		// a list of this view passed: the server answers its lists again, whatever a listing of the relay's met before
		failedAt.set(NEVER);
	}

	/**
	 * Whether {@code item} is the first of a list to bear its name, {@code named} holding the names of those before it:
	 * of a name a server lists twice (a broken or lying server), the first entry is the one the relay keeps and the
	 * policies decide from, as the lists show it (review 43e F3). An entry without a name is kept as ever.
	 */
	static boolean firstOfItsName(JsonNode item, Set<String> named) {
		JsonNode name = item.get("name");
		return name == null || !name.isTextual() || named.add(name.textValue());
	}

	/** What the server published of {@code name}, or {@code null} when it was not seen. */
	Definition definition(String name) {
		return items.get(name);
	}

	/** When the relay last listed the whole catalogue ({@link System#nanoTime()}), once {@link #complete()}. */
	long listedAt() {
		return listedAt;
	}

	/** Whether the catalogue was listed whole: a name it lacks is one the server did not publish. */
	boolean complete() {
		return complete;
	}

	/** Whether the relay's listing was cut short (a list of more pages or items than it reads): see {@link #complete}. */
	boolean cut() {
		return cut;
	}

	/** How many definitions are kept. */
	int size() {
		return items.size();
	}

	/**
	 * What the kept definitions weigh in the catalogues' bound ({@link PublishedCatalogues}): one for each, and one for
	 * each argument it declares for mirroring (each such declaration holds its header name and property path; a tool
	 * that declared 20,000 took 4 MB per view, unweighed: review 43h F-5).
	 */
	long weight() {
		long weight = 0;
		for (Definition definition : items.values()) {
			weight += 1 + definition.headers().size();
		}
		return weight;
	}

	/**
	 * Whether a listing may be begun in the background at {@code now} (a {@link System#nanoTime()}): none was begun in
	 * the last {@code every} nanoseconds; if so, {@code now} is when the last was. At most one caller in a period is
	 * told yes, however many ask at once, so that calls that do not wait for a listing do not begin one each, whether
	 * the server hangs or fails at once.
	 */
	boolean mayListInBackground(long now, long every) {
		long last = listedInBackgroundAt.get();
		return (last == NEVER || now - last >= every) && listedInBackgroundAt.compareAndSet(last, now);
	}

	/**
	 * Lists the whole catalogue with {@code lister}, or joins the listing in flight; what it lists replaces what was
	 * kept, seen at the time {@code clock} tells when the listing answers. A failure is every waiter's; a listing
	 * that hung ({@link PublishedCatalogues.Unavailable#hung()}: the server did not answer within the bound) is
	 * remembered for {@code remember} nanoseconds: a call in that time begins no listing, and fails at once with
	 * {@code remembered} (a list that hangs makes one call in each such period wait for it, not every call: review
	 * 43j N-2). Any other failure is not remembered: it answered at once, so the next call may list again without
	 * waiting long, and it may be the request's own (the session or headers the listing was made with: a forgotten
	 * session, a made-up one), which must not refuse the view's other requests (review 43l L-1). A listing that
	 * answers forgets a hang, and so does a list of the view that passes the relay ({@link #published}). A listing
	 * cancelled by all its waiters is no failure, nor is one the server's listings never let run
	 * ({@link ServerListings.Refused}: the caller had too many at once).
	 */
	Mono<Void> list(Supplier<Mono<UpstreamLister.Listed>> lister, LongSupplier clock, long remember,
			Supplier<? extends RuntimeException> remembered) {
		return listing(WHOLE, lister, clock, remember, remembered, listed -> replaceWith(listed, clock.getAsLong()));
	}

	/**
	 * Lists pages with {@code lister} until one names {@code name} ({@link UpstreamLister} stops there), or joins such
	 * a listing in flight for the same name, or the whole list's listing in flight ({@link #list}): the definitions of
	 * the pages read are kept (seen at the time {@code clock} tells), and the catalogue stays as complete, and as old,
	 * as it was (review 43h F-3: a call that needs one definition reads the pages up to it, not the whole list, which
	 * is listed only as {@link #list} lists it). A listing that read every page without finding {@code name} (or was
	 * cut) is the whole list's, and replaces what was kept, as {@link #list}'s does. A failure is remembered as
	 * {@link #list}'s is, for both.
	 */
	Mono<Void> seek(String name, Supplier<Mono<UpstreamLister.Listed>> lister, LongSupplier clock, long remember,
			Supplier<? extends RuntimeException> remembered) {
		return Mono.defer(() -> {
			Mono<Void> whole = inFlight.get(WHOLE);
			return whole != null ? whole : listing(name, lister, clock, remember, remembered, listed -> {
				if (listed.whole() || !names(listed, name)) {
					replaceWith(listed, clock.getAsLong());
				}
				else {
					keepFound(listed, clock.getAsLong());
				}
			});
		});
	}

	/** The listing in flight under {@code slot} joined, or one begun there that {@code keep} keeps (see {@link #list}). */
	private Mono<Void> listing(Object slot, Supplier<Mono<UpstreamLister.Listed>> lister, LongSupplier clock,
			long remember, Supplier<? extends RuntimeException> remembered, Consumer<UpstreamLister.Listed> keep) {
		return Mono.defer(() -> {
			Mono<Void> joined = inFlight.get(slot);
			if (joined != null) {
				return joined;
			}
			long failed = failedAt.get();
			if (failed != NEVER && clock.getAsLong() - failed < remember) {
				return Mono.error(remembered.get());
			}
			AtomicReference<Mono<Void>> self = new AtomicReference<>();
			Mono<Void> started = Mono.defer(lister)
				.doOnNext(listed -> {
					keep.accept(listed);
					failedAt.set(NEVER);
				})
				.doOnError(failure -> {
					if (failure instanceof PublishedCatalogues.Unavailable unavailable && unavailable.hung()) {
						failedAt.set(clock.getAsLong());
					}
				})
				.then()
				.doFinally(signal -> inFlight.remove(slot, self.get()))
				.share();
			self.set(started);
			return inFlight.putIfAbsent(slot, started) == null ? started
					: listing(slot, lister, clock, remember, remembered, keep);
		});
	}

	private static boolean names(UpstreamLister.Listed listed, String name) {
		for (JsonNode item : listed.items()) {
			if (name.equals(item.path("name").textValue())) {
				return true;
			}
		}
		return false;
	}

	/** Keeps the definitions of a listing cut short after the page that named what it sought, the first of each name. */
	private void keepFound(UpstreamLister.Listed listed, long now) {
		Set<String> named = new java.util.HashSet<>();
		for (JsonNode item : listed.items()) {
			if (firstOfItsName(item, named)) {
				published(item, now);
			}
		}
	}

	/**
	 * What was found of {@code name} in the list {@code list} of {@code server}, as kept: its definition, or empty;
	 * a name a catalogue cut short lacks is no name the server did not publish: the policies cannot decide it
	 * ({@link PublishedCatalogues.Unavailable}).
	 */
	Mono<Optional<Definition>> found(String server, String list, String name) {
		Definition definition = definition(name);
		if (definition == null && cut()) {
			return Mono.error(new PublishedCatalogues.Unavailable(server, list, "is longer than the relay reads ("
					+ UpstreamLister.MAX_PAGES + " pages, " + MAX_ITEMS + " items) and does not name it in what was read"));
		}
		return Mono.just(Optional.ofNullable(definition));
	}

	private void replaceWith(UpstreamLister.Listed listed, long now) {
		Map<String, Definition> kept = new ConcurrentHashMap<>();
		boolean whole = listed.whole();
		for (JsonNode item : listed.items()) {
			JsonNode name = item.get("name");
			if (name != null && name.isTextual()) {
				if (kept.size() < MAX_ITEMS) {
					kept.putIfAbsent(name.textValue(), Definition.of(item, now));
				}
				else {
					whole = false;
				}
			}
		}
		items = kept;
		cut = !whole;
		listedAt = now;
		complete = true;
	}

}
