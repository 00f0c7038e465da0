package dev.mcprelay.interceptors.toolsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One server's catalogue under concurrency: one listing in flight, shared by every search that waits; a listing (or a
 * client's own list) that began before {@code list_changed} is never kept.
 */
class ToolCatalogueTest {

	private static final Duration WITHIN = Duration.ofSeconds(10);

	private final ToolCatalogue<ToolIndex> catalogue = ToolCatalogue.indexed();

	private final List<Sinks.One<List<ObjectNode>>> listings = new CopyOnWriteArrayList<>();

	private final AtomicInteger started = new AtomicInteger();

	@BeforeAll
	static void loadLucene() {
		// as the relay does at start-up: Lucene reads its codecs from jar files once, never on a non-blocking thread
		ToolIndex.warmUp();
	}

	/** A lister whose every listing waits until the test answers it. */
	private Mono<List<ObjectNode>> lister() {
		started.incrementAndGet();
		Sinks.One<List<ObjectNode>> listing = Sinks.one();
		listings.add(listing);
		return listing.asMono();
	}

	@Test
	void fiftyFirstSearchesShareOneListing() {
		List<Mono<ToolIndex>> searches = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			searches.add(catalogue.get(this::lister).cache());
			searches.get(i).subscribe();
		}

		assertThat(started).as("one listing in flight per server").hasValue(1);
		listings.get(0).tryEmitValue(List.of(ToolIndexTest.tool("echo", "Echoes")));
		for (Mono<ToolIndex> search : searches) {
			assertThat(names(search.block(WITHIN))).containsExactly("echo");
		}
		assertThat(names(catalogue.get(this::lister).block(WITHIN))).as("kept for the next search").containsExactly("echo");
		assertThat(started).hasValue(1);
	}

	@Test
	void aSearchThatWaitedOnAnotherCallersListingThatFailedListsOnItsOwn() {
		// tenant A's listing fails (its token is refused upstream); tenant B, who waited for it, may list
		Mono<ToolIndex> a = catalogue.get(this::lister).cache();
		a.subscribe(index -> { }, failure -> { });
		Mono<ToolIndex> b = catalogue.get(this::lister).cache();
		b.subscribe(index -> { }, failure -> { });
		assertThat(started).as("B waits on A's listing").hasValue(1);

		listings.get(0).tryEmitError(new IllegalStateException("503 from the upstream, for A"));

		assertThatThrownBy(() -> a.block(WITHIN)).as("A's failure is A's").hasMessageContaining("for A");
		await().atMost(WITHIN).untilAsserted(() -> assertThat(started).as("B lists on its own").hasValue(2));
		listings.get(1).tryEmitValue(List.of(ToolIndexTest.tool("echo", "Echoes")));
		assertThat(names(b.block(WITHIN))).as("B never gets A's failure").containsExactly("echo");
		assertThat(names(catalogue.get(this::lister).block(WITHIN))).as("B's listing is kept").containsExactly("echo");
		assertThat(started).hasValue(2);
	}

	@Test
	void aListingThatBeganBeforeListChangedIsDiscardedAndListedAgain() {
		Mono<ToolIndex> search = catalogue.get(this::lister).cache();
		search.subscribe();

		catalogue.invalidate();
		listings.get(0).tryEmitValue(List.of(ToolIndexTest.tool("old_tool", "Was there before the change")));

		await().atMost(WITHIN).untilAsserted(() -> assertThat(started)
			.as("the stale listing's result is not used: a new one begins").hasValue(2));
		listings.get(1).tryEmitValue(List.of(ToolIndexTest.tool("new_tool", "Came with the change")));
		assertThat(names(search.block(WITHIN))).containsExactly("new_tool");
		assertThat(names(catalogue.get(this::lister).block(WITHIN))).containsExactly("new_tool");
		assertThat(started).hasValue(2);
	}

	@Test
	void aClientsListSentBeforeListChangedIsNeverKept() {
		long sentIn = catalogue.generation();
		catalogue.invalidate();

		ToolIndex answered = catalogue.update(List.of(ToolIndexTest.tool("old_tool", "Before the change")), sentIn)
			.block(WITHIN);

		assertThat(names(answered)).as("that answer is still what its client is shown").containsExactly("old_tool");
		Mono<ToolIndex> next = catalogue.get(this::lister).cache();
		next.subscribe();
		assertThat(started).as("the catalogue is listed, not taken from the stale answer").hasValue(1);
		listings.get(0).tryEmitValue(List.of(ToolIndexTest.tool("new_tool", "After the change")));
		assertThat(names(next.block(WITHIN))).containsExactly("new_tool");
	}

	@Test
	void aFailedListingFailsItsWaitersAndTheNextSearchListsAgain() {
		Mono<ToolIndex> first = catalogue.get(this::lister).cache();
		first.subscribe(index -> {
		}, error -> {
		});
		listings.get(0).tryEmitError(new IllegalStateException("upstream down"));

		assertThat(first.onErrorResume(error -> Mono.empty()).block(WITHIN)).isNull();
		Mono<ToolIndex> second = catalogue.get(this::lister).cache();
		second.subscribe();
		listings.get(1).tryEmitValue(List.of(ToolIndexTest.tool("echo", "Echoes")));
		assertThat(names(second.block(WITHIN))).containsExactly("echo");
	}

	private static List<String> names(ToolIndex index) {
		return index.tools().stream().map(ToolIndex::name).toList();
	}

}
