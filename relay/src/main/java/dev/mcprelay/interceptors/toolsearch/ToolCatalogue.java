package dev.mcprelay.interceptors.toolsearch;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One view's whole tool catalogue of a server ({@link dev.mcprelay.policy.UpstreamView}: what the server published to
 * callers it cannot tell apart), as tool search holds it ({@code T}: indexed for a server's search, {@link #indexed};
 * the tools as listed for a virtual server's, {@link #listed}, which merges its members' before it indexes them);
 * shared by every session in that view. Filled from a complete {@code tools/list} answer, or by listing every page when
 * none is at hand ({@link CatalogueListings}: in its turn among the server's listings, cut as the policies' are);
 * dropped when the server says its tools changed ({@code notifications/tools/list_changed}), to be listed again on next
 * use.
 *
 * <p>Exact under concurrency: one listing is in flight per view at a time, and every search that needs the
 * catalogue meanwhile waits for it (fifty first searches start one listing, not fifty). Each {@code list_changed}
 * starts a new generation; what began in an earlier one (a listing, or a client's own {@code tools/list}) is never
 * kept, since it may predate the change: a search waiting on such a listing gets a fresh one instead (at most
 * {@value #ATTEMPTS} listings, then the last is used once, not kept).
 *
 * <p>Kept among every catalogue tool search keeps, under their one bound in bytes ({@link KeptCatalogues}): it weighs
 * the JSON of the tools it holds, weighed again whenever it is listed or dropped.
 *
 * <p>A listing is made with the lister of the search that started it (that caller's session, token and upstream
 * headers), so its failure may be that caller's alone: a search that waited for it lists once on its own instead of
 * taking that failure ({@link #listAlone}).
 */
public final class ToolCatalogue<T> implements KeptCatalogues.Kept {

	/** The listings one search starts at most while the catalogue keeps changing under it. */
	static final int ATTEMPTS = 3;

	/** The current generation: one more for every {@code list_changed}; shared by the server's views. */
	private final AtomicLong generation;

	/** The catalogue, with the generation it was listed in; {@code null} until listed. */
	private volatile Kept<T> kept;

	/** The listing in flight, with the generation it began in; {@code null} when none is. */
	private final AtomicReference<Listing<T>> listing = new AtomicReference<>();

	/** What the catalogue holds of a list of tools (built off the event loop), and the tools it holds. */
	private final Function<List<ObjectNode>, T> build;

	private final Function<T, List<ObjectNode>> tools;

	/** Tells whoever keeps this catalogue that what it holds changed (it is weighed again). */
	private volatile Runnable resized = () -> {
	};

	private ToolCatalogue(AtomicLong generation, Function<List<ObjectNode>, T> build,
			Function<T, List<ObjectNode>> tools) {
		this.generation = generation;
		this.build = build;
		this.tools = tools;
	}

	/** A catalogue indexed for search, with a generation of its own. */
	static ToolCatalogue<ToolIndex> indexed() {
		return indexed(new AtomicLong());
	}

	/**
	 * A catalogue of one view of a server, indexed for search, whose generation is the server's ({@code generation}:
	 * one more for each of its {@code list_changed}), so that a list sent before a change is never kept by a view's
	 * catalogue made after it.
	 */
	static ToolCatalogue<ToolIndex> indexed(AtomicLong generation) {
		return new ToolCatalogue<>(generation, ToolIndex::new, ToolIndex::tools);
	}

	/**
	 * A catalogue of one view of a member of a virtual server, the tools as listed (the virtual server indexes its
	 * members' together), whose generation is the member's, as for {@link #indexed(AtomicLong)}.
	 */
	public static ToolCatalogue<List<ObjectNode>> listed(AtomicLong generation) {
		return new ToolCatalogue<>(generation, List::copyOf, list -> list);
	}

	private record Kept<T>(long generation, T index, long bytes) {
	}

	private record Listing<T>(long generation, Mono<T> result) {
	}

	/** The current generation, to hand to {@link #update} for a {@code tools/list} sent now. */
	long generation() {
		return generation.get();
	}

	/** The catalogue, listed with {@code lister} when it is not known (or joined to the listing in flight). */
	public Mono<T> get(Supplier<Mono<List<ObjectNode>>> lister) {
		return get(lister, 1);
	}

	private Mono<T> get(Supplier<Mono<List<ObjectNode>>> lister, int attempt) {
		return Mono.defer(() -> {
			long now = generation.get();
			Kept<T> current = kept;
			if (current != null && current.generation() == now) {
				return Mono.just(current.index());
			}
			Listing<T> inFlight = listing.get();
			boolean own = false;
			if (inFlight == null || inFlight.generation() != now) {
				Listing<T> started = new Listing<>(now, list(lister, now));
				own = listing.compareAndSet(inFlight, started);
				inFlight = own ? started : listing.get();
				if (inFlight == null) {
					// the listing that won ended at once; look again
					return get(lister, attempt);
				}
			}
			long began = inFlight.generation();
			Mono<T> listed = own ? inFlight.result()
					: inFlight.result().onErrorResume(failure -> listAlone(lister));
			return listed.flatMap(index -> began == generation.get() || attempt >= ATTEMPTS
					? Mono.just(index) : get(lister, attempt + 1));
		});
	}

	/**
	 * A listing of one search's own, with its own lister, once the listing it waited for, another search's, failed:
	 * that failure may be the other caller's own (its token, the headers its interceptors set), and is never handed
	 * on. Not shared: each search that waited lists once more, and its failure is its own.
	 */
	private Mono<T> listAlone(Supplier<Mono<List<ObjectNode>>> lister) {
		return Mono.defer(() -> {
			long began = generation.get();
			return Mono.defer(lister).flatMap(this::index).doOnNext(index -> keep(began, index));
		});
	}

	/**
	 * One listing begun in generation {@code began}: indexed off the event loop, kept only while no
	 * {@code list_changed} came since it began, and shared, uncancellable, by every search that waits for it.
	 */
	private Mono<T> list(Supplier<Mono<List<ObjectNode>>> lister, long began) {
		return Mono.defer(lister)
			.flatMap(this::index)
			.doOnNext(index -> keep(began, index))
			.doFinally(signal -> listing.getAndUpdate(current -> current != null && current.generation() == began
					? null : current))
			.share();
	}

	/**
	 * The catalogue is {@code tools}, as a complete {@code tools/list} answer sent in generation {@code sentIn} gave
	 * it: indexed off the event loop (a large catalogue takes tens of milliseconds) unless it is the catalogue already
	 * held, and kept unless a {@code list_changed} came since it was sent.
	 */
	Mono<T> update(List<ObjectNode> listed, long sentIn) {
		Kept<T> current = kept;
		if (current != null && tools.apply(current.index()).equals(listed)) {
			return Mono.just(current.index());
		}
		return index(listed).doOnNext(index -> keep(sentIn, index));
	}

	/** The server's tools changed: what was listed, or is being listed, is stale. */
	public void invalidate() {
		generation.incrementAndGet();
		kept = null;
		resized.run();
	}

	/** The JSON size of the tools it holds now; 0 before it is listed. */
	@Override
	public long bytes() {
		Kept<T> current = kept;
		return current == null ? 0 : current.bytes();
	}

	@Override
	public void whenResized(Runnable resized) {
		this.resized = resized;
	}

	private Mono<T> index(List<ObjectNode> listed) {
		return Mono.fromCallable(() -> build.apply(listed)).subscribeOn(Schedulers.parallel());
	}

	/**
	 * Keeps {@code index}, listed in generation {@code listedIn}, when that is still the current one (a
	 * {@code list_changed} that comes right after is safe: what is kept carries its generation, and a stale one is
	 * never read).
	 */
	private void keep(long listedIn, T index) {
		if (listedIn == generation.get()) {
			long bytes = 0;
			for (ObjectNode tool : tools.apply(index)) {
				bytes += JsonRpcErrors.toBytes(tool).length;
			}
			kept = new Kept<>(listedIn, index, bytes);
			resized.run();
		}
	}

}
