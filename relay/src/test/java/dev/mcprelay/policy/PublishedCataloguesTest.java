package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.proxy.UpstreamLister;
import reactor.core.Disposable;
import reactor.core.publisher.Sinks;

/**
 * A caller that controls a header of its view (one an interceptor sets, or one configured from a request header) can
 * make every call a view of its own, and so a listing of the server's whole catalogue: the listings of one server are
 * bounded ({@value PublishedCatalogues#MAX_LISTINGS} at once, over every view), and a call past that bound is refused
 * as undecidable (fails closed) instead of starting one more.
 */
class PublishedCataloguesTest {

	@Test
	void aServersListingsAreBoundedOverAllItsViews() {
		AtomicInteger listings = new AtomicInteger();
		List<Sinks.One<UpstreamLister.Listed>> answers = new ArrayList<>();
		PublishedCatalogues catalogues = new PublishedCatalogues((context, list) -> {
			listings.incrementAndGet();
			Sinks.One<UpstreamLister.Listed> answer = Sinks.one();
			answers.add(answer);
			return answer.asMono();
		}, id -> null);
		List<Disposable> waiting = new ArrayList<>();
		for (int view = 0; view < PublishedCatalogues.MAX_LISTINGS; view++) {
			waiting.add(catalogues.find(context("tenant-" + view), "tools/list", "read_file").subscribe());
		}
		assertThat(listings.get()).as("one listing per view").isEqualTo(PublishedCatalogues.MAX_LISTINGS);

		AtomicReference<Throwable> refused = new AtomicReference<>();
		catalogues.find(context("one-more"), "tools/list", "read_file").subscribe(null, refused::set);
		assertThat(listings.get()).as("no listing past the bound").isEqualTo(PublishedCatalogues.MAX_LISTINGS);
		assertThat(refused.get()).isInstanceOf(PublishedCatalogues.Unavailable.class);
		assertThat(((PublishedCatalogues.Unavailable) refused.get()).why()).contains("too many views");

		answers.get(0).tryEmitValue(new UpstreamLister.Listed(List.of(), true));
		waiting.add(catalogues.find(context("one-more"), "tools/list", "read_file").subscribe());
		assertThat(listings.get()).as("a listing that ended makes room").isEqualTo(PublishedCatalogues.MAX_LISTINGS + 1);
		waiting.forEach(Disposable::dispose);
	}

	/** A request to server {@code up} whose interceptors told the upstream the tenant {@code tenant}. */
	private static CallContext context(String tenant) {
		CallContext context = new CallContext("up", SpringRequestHeaders.of(new HttpHeaders()));
		context.upstreamHeaders().set("X-Tenant", tenant);
		return context;
	}

}
