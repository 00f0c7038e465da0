package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import reactor.core.Disposable;
import dev.mcprelay.proxy.UpstreamLister;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One view's catalogue: calls that need it listed while a listing is in flight wait for that one (single flight), a
 * listed catalogue is complete (a name it lacks is one the server did not publish), and a failed listing is every
 * waiter's and leaves the catalogue to be listed again.
 */
class PublishedItemsTest {

	@Test
	void callsThatNeedTheCatalogueMeanwhileWaitForTheOneListing() {
		PublishedItems tools = new PublishedItems();
		AtomicInteger listings = new AtomicInteger();
		Sinks.One<UpstreamLister.Listed> answer = Sinks.one();
		List<Disposable> waiting = new ArrayList<>();
		AtomicInteger done = new AtomicInteger();
		for (int i = 0; i < 8; i++) {
			waiting.add(tools.list(() -> {
				listings.incrementAndGet();
				return answer.asMono();
			}, System::nanoTime).subscribe(null, null, done::incrementAndGet));
		}
		assertThat(listings.get()).as("one listing for eight waiters").isEqualTo(1);
		assertThat(tools.complete()).isFalse();

		answer.tryEmitValue(new UpstreamLister.Listed(
				List.of(RawHttp.json("{\"name\":\"read_file\",\"annotations\":{\"readOnlyHint\":true}}")), true));
		assertThat(done.get()).as("every waiter got it").isEqualTo(8);
		assertThat(tools.complete()).as("listed whole").isTrue();
		assertThat(tools.definition("read_file").annotations()).containsEntry("readOnlyHint", true);
		assertThat(tools.definition("delete_file")).as("not published").isNull();
		waiting.forEach(Disposable::dispose);
	}

	@Test
	void aFailedListingLeavesTheCatalogueToBeListedAgain() {
		PublishedItems tools = new PublishedItems();
		AtomicInteger listings = new AtomicInteger();
		tools.list(() -> {
			listings.incrementAndGet();
			return Mono.error(new IllegalStateException("503"));
		}, System::nanoTime).onErrorResume(failure -> Mono.empty()).block();
		assertThat(tools.complete()).isFalse();
		tools.list(() -> {
			listings.incrementAndGet();
			return Mono.just(new UpstreamLister.Listed(List.<JsonNode>of(), true));
		}, System::nanoTime).block();
		assertThat(listings.get()).isEqualTo(2);
		assertThat(tools.complete()).isTrue();
		assertThat(tools.cut()).isFalse();
	}

	@Test
	void aListingCutShortIsNotListedAgainAndSaysItWasCut() {
		PublishedItems tools = new PublishedItems();
		tools.list(() -> Mono.just(new UpstreamLister.Listed(List.of(RawHttp.json("{\"name\":\"tool_0\"}")), false)),
				System::nanoTime).block();
		assertThat(tools.complete()).as("not listed again for every name").isTrue();
		assertThat(tools.cut()).as("what it lacks may be past the cut").isTrue();
	}

	/** Review 43e F3: of a name the relay's own listing finds twice, the first entry is kept, as the lists show it. */
	@Test
	void theRelaysOwnListingKeepsTheFirstEntryOfANameListedTwice() {
		PublishedItems tools = new PublishedItems();
		tools.list(() -> Mono.just(new UpstreamLister.Listed(List.of(
				RawHttp.json("{\"name\":\"deploy\",\"annotations\":{\"readOnlyHint\":true}}"),
				RawHttp.json("{\"name\":\"deploy\",\"annotations\":{\"readOnlyHint\":false}}")), true)),
				System::nanoTime).block();
		assertThat(tools.definition("deploy").annotations()).containsEntry("readOnlyHint", true);
	}

	/** Review 43h F-5: a definition weighs one, and one more for each argument it declares for mirroring. */
	@Test
	void aDefinitionWeighsItsDeclarationsToo() {
		PublishedItems tools = new PublishedItems();
		tools.list(() -> Mono.just(new UpstreamLister.Listed(List.of(RawHttp.json("{\"name\":\"plain\"}"),
				RawHttp.json("{\"name\":\"route\",\"inputSchema\":{\"properties\":{"
						+ "\"a\":{\"x-mcp-header\":\"A\"},\"b\":{\"x-mcp-header\":\"B\"},"
						+ "\"c\":{\"x-mcp-header\":\"C\"}}}}")), true)), System::nanoTime).block();
		assertThat(tools.weight()).isEqualTo(1 + 4);
	}

}
