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
			}, System::nanoTime, 0, IllegalStateException::new).subscribe(null, null, done::incrementAndGet));
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

	/**
	 * Review 43h F-3: a name sought is listed for once however many calls seek it meanwhile, and a whole listing in
	 * flight is joined instead; what a listing stopped at the name finds is kept without making the catalogue complete
	 * (another name is sought again), and one that read every page without it is the whole list's.
	 */
	@Test
	void aNameSoughtIsListedForOnceAndOnlyAListingWithoutItCompletesTheCatalogue() {
		PublishedItems tools = new PublishedItems();
		AtomicInteger listings = new AtomicInteger();
		Sinks.One<UpstreamLister.Listed> answer = Sinks.one();
		java.util.function.Supplier<Mono<UpstreamLister.Listed>> lister = () -> {
			listings.incrementAndGet();
			return answer.asMono();
		};
		AtomicInteger done = new AtomicInteger();
		for (int i = 0; i < 5; i++) {
			tools.seek("route", lister, System::nanoTime, 0, IllegalStateException::new)
				.subscribe(null, null, done::incrementAndGet);
		}
		assertThat(listings.get()).as("one listing for five calls seeking one name").isEqualTo(1);
		answer.tryEmitValue(new UpstreamLister.Listed(
				List.of(RawHttp.json("{\"name\":\"tool_1\"}"), RawHttp.json("{\"name\":\"route\"}")), false));
		assertThat(done.get()).isEqualTo(5);
		assertThat(tools.definition("route")).as("found, kept").isNotNull();
		assertThat(tools.definition("tool_1")).as("its page kept too").isNotNull();
		assertThat(tools.complete()).as("stopped at the name: what it lacks is not known to be unpublished").isFalse();

		Sinks.One<UpstreamLister.Listed> whole = Sinks.one();
		tools.list(whole::asMono, System::nanoTime, 0, IllegalStateException::new).subscribe();
		tools.seek("other", lister, System::nanoTime, 0, IllegalStateException::new).subscribe();
		assertThat(listings.get()).as("the whole listing in flight is joined").isEqualTo(1);
		whole.tryEmitValue(new UpstreamLister.Listed(List.of(RawHttp.json("{\"name\":\"route\"}")), true));
		assertThat(tools.complete()).isTrue();

		PublishedItems none = new PublishedItems();
		none.seek("nosuch", () -> Mono.just(new UpstreamLister.Listed(List.of(RawHttp.json("{\"name\":\"route\"}")),
				false)), System::nanoTime, 0, IllegalStateException::new).block();
		assertThat(none.complete()).as("no page named it: the whole list, cut").isTrue();
		assertThat(none.cut()).isTrue();
	}

	@Test
	void aFailedListingLeavesTheCatalogueToBeListedAgain() {
		PublishedItems tools = new PublishedItems();
		AtomicInteger listings = new AtomicInteger();
		tools.list(() -> {
			listings.incrementAndGet();
			return Mono.error(new IllegalStateException("503"));
		}, System::nanoTime, 0, IllegalStateException::new).onErrorResume(failure -> Mono.empty()).block();
		assertThat(tools.complete()).isFalse();
		tools.list(() -> {
			listings.incrementAndGet();
			return Mono.just(new UpstreamLister.Listed(List.<JsonNode>of(), true));
		}, System::nanoTime, 0, IllegalStateException::new).block();
		assertThat(listings.get()).isEqualTo(2);
		assertThat(tools.complete()).isTrue();
		assertThat(tools.cut()).isFalse();
	}

	/**
	 * Review 43j N-2: a listing that hung until its bound is remembered for the period given, so that the calls of
	 * that time fail at once instead of each listing, and waiting, again; past it, one lists again.
	 */
	@Test
	void aHungListingIsRememberedForItsPeriod() {
		PublishedItems tools = new PublishedItems();
		AtomicInteger listings = new AtomicInteger();
		long[] now = { 1_000 };
		java.util.function.Supplier<Mono<UpstreamLister.Listed>> failing = () -> {
			listings.incrementAndGet();
			return Mono.error(PublishedCatalogues.Unavailable.hung("s", "tools/list", "503"));
		};
		List<String> failures = new ArrayList<>();
		for (int call = 0; call < 3; call++) {
			tools.list(failing, () -> now[0], 500, () -> new IllegalStateException("remembered"))
				.onErrorResume(failure -> {
					failures.add(failure.getMessage());
					return Mono.empty();
				})
				.block();
			now[0] += 100;
		}
		assertThat(listings.get()).as("one listing in the period, however many calls").isEqualTo(1);
		assertThat(failures).containsExactly("The tools/list of server 's' 503", "remembered", "remembered");

		now[0] += 300;
		tools.list(() -> {
			listings.incrementAndGet();
			return Mono.just(new UpstreamLister.Listed(List.<JsonNode>of(), true));
		}, () -> now[0], 500, () -> new IllegalStateException("remembered")).block();
		assertThat(listings.get()).as("listed again once the period passed").isEqualTo(2);
		assertThat(tools.complete()).isTrue();
	}

	/**
	 * Review 43l L-1: a failure that answered (an error status, a JSON-RPC error: possibly the request's own, a session
	 * the server forgot or one made up) is not remembered for the view, so the view's next request lists again; and a
	 * hang is forgotten as soon as a list of the view passes the relay (the server answers lists again).
	 */
	@Test
	void onlyAHangIsRememberedAndAListThatPassesForgetsIt() {
		PublishedItems tools = new PublishedItems();
		AtomicInteger listings = new AtomicInteger();
		long[] now = { 1_000 };
		for (RuntimeException failure : List.of(new IllegalStateException("404 session not found"),
				new PublishedCatalogues.Unavailable("s", "tools/list", "is unavailable"))) {
			tools.list(() -> {
				listings.incrementAndGet();
				return Mono.error(failure);
			}, () -> now[0], 500, () -> new IllegalStateException("remembered")).onErrorResume(f -> Mono.empty())
				.block();
		}
		tools.list(() -> {
			listings.incrementAndGet();
			return Mono.error(PublishedCatalogues.Unavailable.hung("s", "tools/list", "did not answer"));
		}, () -> now[0], 500, () -> new IllegalStateException("remembered")).onErrorResume(f -> Mono.empty()).block();
		assertThat(listings.get()).as("each failure that answered listed again").isEqualTo(3);

		tools.published(RawHttp.json("{\"name\":\"echo\"}"), now[0]);
		tools.list(() -> {
			listings.incrementAndGet();
			return Mono.just(new UpstreamLister.Listed(List.<JsonNode>of(), true));
		}, () -> now[0], 500, () -> new IllegalStateException("remembered")).block();
		assertThat(listings.get()).as("a list that passed forgot the hang at once").isEqualTo(4);
	}

	@Test
	void aListingCutShortIsNotListedAgainAndSaysItWasCut() {
		PublishedItems tools = new PublishedItems();
		tools.list(() -> Mono.just(new UpstreamLister.Listed(List.of(RawHttp.json("{\"name\":\"tool_0\"}")), false)),
				System::nanoTime, 0, IllegalStateException::new).block();
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
				System::nanoTime, 0, IllegalStateException::new).block();
		assertThat(tools.definition("deploy").annotations()).containsEntry("readOnlyHint", true);
	}

	/** Review 43h F-5: a definition weighs one, and one more for each argument it declares for mirroring. */
	@Test
	void aDefinitionWeighsItsDeclarationsToo() {
		PublishedItems tools = new PublishedItems();
		tools.list(() -> Mono.just(new UpstreamLister.Listed(List.of(RawHttp.json("{\"name\":\"plain\"}"),
				RawHttp.json("{\"name\":\"route\",\"inputSchema\":{\"properties\":{"
						+ "\"a\":{\"x-mcp-header\":\"A\"},\"b\":{\"x-mcp-header\":\"B\"},"
						+ "\"c\":{\"x-mcp-header\":\"C\"}}}}")), true)), System::nanoTime, 0, IllegalStateException::new).block();
		assertThat(tools.weight()).isEqualTo(1 + 4);
	}

}
