package dev.mcprelay.interceptors.toolsearch;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.springframework.stereotype.Component;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

/**
 * Every catalogue tool search keeps, under one bound in bytes: each view's catalogue of a server's search
 * ({@link ToolSearchPolicy}), each view's whole tool list of a virtual server's member, and a virtual server's merged
 * catalogues. Each weighs the JSON of the tools it holds ({@link Kept#bytes}) plus {@value #ENTRY_OVERHEAD} bytes,
 * at most {@value #MAX_BYTES} in all (their objects and indexes take a few times that on the heap); past it the least
 * recently used go first, to be listed again when next needed. A catalogue larger than the whole bound is used by the
 * searches that wait for it and never kept. A catalogue is weighed again whenever what it holds changes (listed,
 * updated, dropped: {@link Kept#whenResized}), so one kept empty and filled later counts what it holds.
 *
 * <p>Keys tell their owners apart by type (each owner keys by a record of its own, and finds under it only what it
 * put): a key's type decides its value's. Thread-safe; upkeep runs on the calling thread.
 */
@Component
public class KeptCatalogues {

	/** The most tools' JSON the kept catalogues hold, all together. */
	public static final long MAX_BYTES = 16L * 1024 * 1024;

	/** What a kept catalogue weighs besides its tools: its key, the cache's node, the catalogue's own objects. */
	static final int ENTRY_OVERHEAD = 512;

	/** A catalogue as this keeps it. */
	public interface Kept {

		/** The JSON size of the tools it holds now (0 while it holds none). */
		long bytes();

		/** How long it is kept after it was put; {@code null}: until it is pushed out or dropped. */
		default Duration lifetime() {
			return null;
		}

		/** Called once, when it is kept: {@code resized} is to be run whenever {@link #bytes} changes. */
		default void whenResized(Runnable resized) {
		}

	}

	private final Cache<Object, Kept> kept = Caffeine.newBuilder()
		.maximumWeight(MAX_BYTES)
		.weigher((Object key, Kept catalogue) -> (int) Math.min(Integer.MAX_VALUE,
				ENTRY_OVERHEAD + catalogue.bytes()))
		.expireAfter(new Expiry<Object, Kept>() {

			@Override
			public long expireAfterCreate(Object key, Kept catalogue, long now) {
				return lifetime(catalogue);
			}

			@Override
			public long expireAfterUpdate(Object key, Kept catalogue, long now, long left) {
				return lifetime(catalogue);
			}

			@Override
			public long expireAfterRead(Object key, Kept catalogue, long now, long left) {
				return left;
			}

		})
		.executor(Runnable::run)
		.build();

	private static long lifetime(Kept catalogue) {
		Duration lifetime = catalogue.lifetime();
		return lifetime == null ? Long.MAX_VALUE : lifetime.toNanos();
	}

	/** The catalogue kept under {@code key}, made by {@code make} (and kept) when none is. */
	@SuppressWarnings("unchecked")
	public <T extends Kept> T get(Object key, Supplier<T> make) {
		return (T) kept.get(key, any -> {
			T made = make.get();
			made.whenResized(() -> kept.asMap().replace(key, made, made));
			return made;
		});
	}

	/** The catalogue kept under {@code key}; {@code null} when none is. */
	@SuppressWarnings("unchecked")
	public <T extends Kept> T getIfPresent(Object key) {
		return (T) kept.getIfPresent(key);
	}

	/** Keeps {@code catalogue} under {@code key}, in place of any kept there. */
	public void put(Object key, Kept catalogue) {
		catalogue.whenResized(() -> kept.asMap().replace(key, catalogue, catalogue));
		kept.put(key, catalogue);
	}

	/** Drops every catalogue whose key {@code keys} matches. */
	public void invalidateIf(Predicate<Object> keys) {
		kept.asMap().keySet().removeIf(keys);
	}

	/** What the kept catalogues weigh now (after pending upkeep): their tools' JSON and each one's overhead. */
	public long weight() {
		kept.cleanUp();
		return kept.policy().eviction().orElseThrow().weightedSize().orElse(0);
	}

}
