package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.proxy.UpstreamLister;
import reactor.core.Disposable;
import reactor.core.publisher.Sinks;

/**
 * The listings of one server are bounded over all its views ({@link ServerListings}): at most
 * {@value ServerListings#MAX_RUNNING} run at once and the others wait their turn, so ordinary callers whose first
 * calls coincide are all decided (cold review B, finding 1: the fifth was refused); and a caller that controls a
 * header of its view (one an interceptor sets, or one configured from a request header), and so can make every call a
 * view of its own, has at most {@value ServerListings#MAX_PER_CALLER} listings running or in the server's queue, so that
 * it cannot shut another caller out; its listings past those wait for a turn of its own (at most
 * {@value ServerListings#MAX_WAITING_PER_CALLER}, the next refused at once), so that its calls that coincide are all
 * decided (review 43l L-3: its third was refused at once, and went without the header the relay writes).
 */
class PublishedCataloguesTest {

	private final AtomicInteger listings = new AtomicInteger();

	private final List<Sinks.One<UpstreamLister.Listed>> answers = new ArrayList<>();

	private final PublishedCatalogues catalogues = new PublishedCatalogues((context, list, until) -> {
		listings.incrementAndGet();
		Sinks.One<UpstreamLister.Listed> answer = Sinks.one();
		answers.add(answer);
		return answer.asMono();
	}, id -> null);

	@Test
	void sixCallersColdAtOnceAgainstASlowListingAreAllDecided() {
		List<AtomicReference<Optional<Map<String, Object>>>> decided = new ArrayList<>();
		List<AtomicReference<Throwable>> failed = new ArrayList<>();
		for (int user = 0; user < 6; user++) {
			AtomicReference<Optional<Map<String, Object>>> found = new AtomicReference<>();
			AtomicReference<Throwable> failure = new AtomicReference<>();
			decided.add(found);
			failed.add(failure);
			catalogues.find(context(Caller.apiKey("user-" + user), "t"), "tools/list", "read_file")
				.subscribe(found::set, failure::set);
		}
		assertThat(listings.get()).as("listings running").isEqualTo(ServerListings.MAX_RUNNING);
		assertThat(failed).allSatisfy(failure -> assertThat(failure.get()).as("none refused").isNull());

		for (int answered = 0; answered < 6; answered++) {
			answers.get(answered).tryEmitValue(listed("read_file"));
		}
		assertThat(listings.get()).as("each waiting view listed in its turn").isEqualTo(6);
		assertThat(failed).allSatisfy(failure -> assertThat(failure.get()).as("none refused").isNull());
		assertThat(decided).allSatisfy(found -> assertThat(found.get()).as("decided").isPresent());
	}

	@Test
	void oneCallerVaryingItsViewDoesNotShutAnotherOut() {
		Caller bob = Caller.apiKey("bob");
		int views = ServerListings.MAX_PER_CALLER + ServerListings.MAX_WAITING_PER_CALLER + 2;
		List<Disposable> bobs = new ArrayList<>();
		List<AtomicReference<Throwable>> bobRefused = new ArrayList<>();
		for (int view = 0; view < views; view++) {
			AtomicReference<Throwable> refused = new AtomicReference<>();
			bobRefused.add(refused);
			bobs.add(catalogues.find(context(bob, "tenant-" + view), "tools/list", "read_file")
				.subscribe(null, refused::set));
		}
		assertThat(listings.get()).as("bob's listings").isEqualTo(ServerListings.MAX_PER_CALLER);
		assertThat(bobRefused.stream().filter(refused -> refused.get() != null).count())
			.as("bob's views past his bound and his waiting ones refused").isEqualTo(2);
		assertThat(((PublishedCatalogues.Unavailable) bobRefused.get(views - 1).get()).why()).contains("one caller");

		AtomicReference<Optional<Map<String, Object>>> alices = new AtomicReference<>();
		AtomicReference<Throwable> aliceRefused = new AtomicReference<>();
		catalogues.find(context(Caller.apiKey("alice"), "own"), "tools/list", "read_file")
			.subscribe(alices::set, aliceRefused::set);
		assertThat(listings.get()).as("alice's listing runs beside bob's").isEqualTo(ServerListings.MAX_PER_CALLER + 1);
		answers.get(ServerListings.MAX_PER_CALLER).tryEmitValue(listed("read_file"));
		assertThat(aliceRefused.get()).isNull();
		assertThat(alices.get()).isPresent();
		bobs.forEach(Disposable::dispose);
	}

	@Test
	void aCallersListingsPastItsShareWaitForATurnOfItsOwnAndOnlyTheRestAreRefusedAtOnce() {
		Caller bob = Caller.apiKey("bob");
		int admitted = ServerListings.MAX_PER_CALLER;
		int bound = admitted + ServerListings.MAX_WAITING_PER_CALLER;
		List<AtomicReference<Optional<Map<String, Object>>>> decided = new ArrayList<>();
		List<AtomicReference<Throwable>> failed = new ArrayList<>();
		List<Disposable> bobs = new ArrayList<>();
		for (int view = 0; view <= bound; view++) {
			AtomicReference<Optional<Map<String, Object>>> found = new AtomicReference<>();
			AtomicReference<Throwable> failure = new AtomicReference<>();
			decided.add(found);
			failed.add(failure);
			bobs.add(catalogues.find(context(bob, "tenant-" + view), "tools/list", "read_file")
				.subscribe(found::set, failure::set));
		}
		assertThat(listings.get()).as("bob's listings running").isEqualTo(admitted);
		assertThat(failed.subList(0, bound)).as("bob's views within his bound wait, none refused")
			.allSatisfy(failure -> assertThat(failure.get()).isNull());
		assertThat(failed.get(bound).get()).as("the one past his waiting ones, refused at once")
			.isInstanceOf(PublishedCatalogues.Unavailable.class);
		assertThat(((PublishedCatalogues.Unavailable) failed.get(bound).get()).why())
			.isEqualTo("is being listed for too many views of one caller at once (" + admitted + ", and "
					+ ServerListings.MAX_WAITING_PER_CALLER + " more waiting); try again shortly");

		// a waiting view whose call went away frees its place: another view of bob's waits instead of being refused
		bobs.get(admitted).dispose();
		AtomicReference<Optional<Map<String, Object>>> instead = new AtomicReference<>();
		AtomicReference<Throwable> insteadFailed = new AtomicReference<>();
		catalogues.find(context(bob, "tenant-instead"), "tools/list", "read_file")
			.subscribe(instead::set, insteadFailed::set);
		assertThat(insteadFailed.get()).as("waits in the cancelled one's place").isNull();

		// each of bob's listings that ends hands its turn to his first waiting one, in order
		for (int answered = 0; answered < listings.get(); answered++) {
			answers.get(answered).tryEmitValue(listed("read_file"));
		}
		assertThat(listings.get()).as("every waiting view of bob's listed in its turn, the cancelled one never")
			.isEqualTo(bound);
		for (int view = 0; view < bound; view++) {
			if (view != admitted) {
				assertThat(failed.get(view).get()).as("view %d", view).isNull();
				assertThat(decided.get(view).get()).as("view %d decided", view).isPresent();
			}
		}
		assertThat(insteadFailed.get()).isNull();
		assertThat(instead.get()).isPresent();
	}

	@Test
	void aListingThatEndsHandsItsPlaceToTheFirstWaiting() {
		List<Disposable> running = new ArrayList<>();
		for (int user = 0; user < ServerListings.MAX_RUNNING; user++) {
			running.add(catalogues.find(context(Caller.apiKey("user-" + user), "t"), "tools/list", "x").subscribe());
		}
		Disposable cancelled = catalogues.find(context(Caller.apiKey("first"), "t"), "tools/list", "x").subscribe();
		AtomicReference<Optional<Map<String, Object>>> second = new AtomicReference<>();
		catalogues.find(context(Caller.apiKey("second"), "t"), "tools/list", "read_file").subscribe(second::set);
		cancelled.dispose();
		answers.get(0).tryEmitValue(listed());
		assertThat(listings.get()).as("the cancelled one left the queue; the next waiting runs")
			.isEqualTo(ServerListings.MAX_RUNNING + 1);
		answers.get(ServerListings.MAX_RUNNING).tryEmitValue(listed("read_file"));
		assertThat(second.get()).isPresent();
		running.forEach(Disposable::dispose);
	}

	@Test
	void aListingThatFindsNoRoomWithinTheServersBoundIsRefused() {
		ServerListings bound = new ServerListings();
		java.time.Duration wait = java.time.Duration.ofSeconds(30);
		List<Sinks.One<String>> held = new ArrayList<>();
		for (int user = 0; user < ServerListings.MAX_RUNNING; user++) {
			Sinks.One<String> answer = Sinks.one();
			held.add(answer);
			bound.bounded("up", Caller.apiKey("user-" + user), wait, answer::asMono).subscribe();
		}
		reactor.test.StepVerifier.withVirtualTime(() -> bound.bounded("up", Caller.apiKey("late"), wait,
				() -> reactor.core.publisher.Mono.just("listed")))
			.expectSubscription()
			.expectNoEvent(wait.minusSeconds(1))
			.thenAwait(java.time.Duration.ofSeconds(1))
			.expectErrorSatisfies(error -> assertThat(error).isInstanceOf(ServerListings.Refused.class)
				.hasMessageContaining("no listing ended within"))
			.verify();
		held.get(0).tryEmitValue("done");
		ServerListings own = new ServerListings();
		for (int listing = 0; listing < ServerListings.MAX_PER_CALLER; listing++) {
			own.bounded("up", Caller.apiKey("bob"), wait, Sinks.<String>one()::asMono).subscribe();
		}
		reactor.test.StepVerifier.withVirtualTime(() -> own.bounded("up", Caller.apiKey("bob"), wait,
				() -> reactor.core.publisher.Mono.just("listed")))
			.expectSubscription()
			.expectNoEvent(wait.minusSeconds(1))
			.thenAwait(java.time.Duration.ofSeconds(1))
			.expectErrorSatisfies(error -> assertThat(error).isInstanceOf(ServerListings.Refused.class)
				.hasMessageContaining("too many views of one caller at once (" + ServerListings.MAX_PER_CALLER
						+ "), and none of them ended within"))
			.verify();
		reactor.test.StepVerifier.create(bound.bounded("up", Caller.apiKey("later"), wait,
				() -> reactor.core.publisher.Mono.just("listed")))
			.expectNext("listed")
			.verifyComplete();
	}

	private static UpstreamLister.Listed listed(String... names) {
		List<com.fasterxml.jackson.databind.JsonNode> items = new ArrayList<>();
		for (String name : names) {
			items.add(dev.mcprelay.jsonrpc.JsonRpcParser.mapper().createObjectNode().put("name", name));
		}
		return new UpstreamLister.Listed(items, true);
	}

	/** A request of {@code caller} to server {@code up} whose interceptors told the upstream the tenant {@code tenant}. */
	private static CallContext context(Caller caller, String tenant) {
		CallContext context = new CallContext("up", SpringRequestHeaders.of(new HttpHeaders()), caller);
		context.upstreamHeaders().set("X-Tenant", tenant);
		return context;
	}

}
