package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.config.ToolsProperties;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.proxy.UpstreamLister;
import dev.mcprelay.testsupport.BoundProperties;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What a rule over a tool's annotations decides from is never older than the server's
 * {@code tools.annotations-max-age} (cold review L, finding 2: with no stream open to say {@code list_changed} on, a
 * tool that turned destructive upstream was decided from its old definition until the client listed again): past it,
 * the next such call lists again first, one listing for every call that waits, and a listing that fails refuses
 * rather than deciding from the old definition (one that hung is remembered for the listing bound, so that the calls
 * meanwhile are refused without listing again); a client's list passing through keeps what it lists young; a rule
 * that reads only names decides from what is kept, however old. The time is the test's.
 */
class PublishedCataloguesAgeTest {

	private static final long MAX_AGE = ToolsProperties.DEFAULT_ANNOTATIONS_AGE.toNanos();

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final AtomicInteger listings = new AtomicInteger();

	private final List<Sinks.One<UpstreamLister.Listed>> answers = new ArrayList<>();

	private final PublishedCatalogues catalogues = new PublishedCatalogues((context, list, until) -> {
		listings.incrementAndGet();
		Sinks.One<UpstreamLister.Listed> answer = Sinks.one();
		answers.add(answer);
		return answer.asMono();
	}, id -> null, new ServerListings(), now::get);

	private final CallContext alice = new CallContext("up", SpringRequestHeaders.of(new HttpHeaders()),
			Caller.apiKey("alice"));

	@Test
	void aDefinitionPastItsAgeIsListedAgainBeforeARuleOverAnnotationsDecides() {
		AtomicReference<Optional<Map<String, Object>>> first = new AtomicReference<>();
		catalogues.find(alice, "tools/list", "deploy", true).subscribe(first::set);
		answers.get(0).tryEmitValue(listed(true));
		assertThat(first.get()).hasValue(Map.of("readOnlyHint", true));

		now.addAndGet(MAX_AGE);
		assertThat(catalogues.known(alice, "tools/list", "deploy", true)).as("as old as it may be")
			.hasValue(Map.of("readOnlyHint", true));
		now.addAndGet(1);
		assertThat(catalogues.known(alice, "tools/list", "deploy", true)).as("older: not decided at once").isNull();
		assertThat(catalogues.known(alice, "tools/list", "deploy", false)).as("a rule over names: of any age")
			.hasValue(Map.of("readOnlyHint", true));
		assertThat(catalogues.known(alice, "tools/list", "ghost", true)).as("a name its old listing lacks").isNull();

		List<AtomicReference<Optional<Map<String, Object>>>> waiting = new ArrayList<>();
		for (int call = 0; call < 5; call++) {
			AtomicReference<Optional<Map<String, Object>>> decided = new AtomicReference<>();
			waiting.add(decided);
			catalogues.find(alice, "tools/list", "deploy", true).subscribe(decided::set);
		}
		assertThat(listings.get()).as("one listing again for five calls").isEqualTo(2);
		assertThat(waiting).allSatisfy(decided -> assertThat(decided.get()).as("waiting for it").isNull());
		answers.get(1).tryEmitValue(listed(false));
		assertThat(waiting).allSatisfy(decided -> assertThat(decided.get()).as("decided from what the server says now")
			.hasValue(Map.of("readOnlyHint", false)));
		assertThat(catalogues.known(alice, "tools/list", "deploy", true)).hasValue(Map.of("readOnlyHint", false));
	}

	@Test
	void aListingThatFailsRefusesRatherThanDecidingFromTheOldDefinition() {
		catalogues.find(alice, "tools/list", "deploy", true).subscribe();
		answers.get(0).tryEmitValue(listed(true));
		now.addAndGet(MAX_AGE + 1);

		AtomicReference<Throwable> refused = new AtomicReference<>();
		catalogues.find(alice, "tools/list", "deploy", true).subscribe(null, refused::set);
		answers.get(1).tryEmitError(new IllegalStateException("503"));
		assertThat(refused.get()).isInstanceOf(PublishedCatalogues.Unavailable.class);

		// review 43l L-1: a failure that answered is not remembered (it may be the request's own): the next call
		// lists again
		AtomicReference<Throwable> hung = new AtomicReference<>();
		catalogues.find(alice, "tools/list", "deploy", true).subscribe(null, hung::set);
		assertThat(listings.get()).as("a 503 is not remembered").isEqualTo(3);
		answers.get(2).tryEmitError(PublishedCatalogues.Unavailable.hung("up", "tools/list", "did not answer"));
		assertThat(hung.get()).isInstanceOf(PublishedCatalogues.Unavailable.class);

		// review 43j N-2: a listing that hung is remembered for the listing bound (the default's 48 s here): a call
		// meanwhile is refused at once, asking the server nothing; the first call past it lists again
		AtomicReference<Throwable> remembered = new AtomicReference<>();
		catalogues.find(alice, "tools/list", "deploy", true).subscribe(null, remembered::set);
		assertThat(remembered.get()).isInstanceOf(PublishedCatalogues.Unavailable.class);
		assertThat(listings.get()).as("refused from the hang remembered").isEqualTo(3);

		now.addAndGet(java.time.Duration.ofSeconds(48).toNanos());
		AtomicReference<Optional<Map<String, Object>>> again = new AtomicReference<>();
		catalogues.find(alice, "tools/list", "deploy", true).subscribe(again::set);
		assertThat(listings.get()).as("the next call past the bound lists again").isEqualTo(4);
		answers.get(3).tryEmitValue(listed(false));
		assertThat(again.get()).hasValue(Map.of("readOnlyHint", false));
	}

	@Test
	void aClientsListPassingThroughKeepsWhatItListsYoung() {
		catalogues.find(alice, "tools/list", "deploy", true).subscribe();
		answers.get(0).tryEmitValue(listed(true));
		now.addAndGet(MAX_AGE / 2);
		catalogues.listing(alice, "tools/list");
		catalogues.published(alice, "tools/list", List.of(tool(false)));
		now.addAndGet(MAX_AGE);

		assertThat(catalogues.known(alice, "tools/list", "deploy", true)).as("seen in the client's list")
			.hasValue(Map.of("readOnlyHint", false));
		assertThat(listings.get()).isEqualTo(1);
	}

	/**
	 * An age longer than nanoseconds count (cold review 43d, finding 4: {@code 300000000000d}, which
	 * {@link java.time.Duration#toNanos()} overflows) is no error at request time: no definition is ever that old.
	 */
	@Test
	void anAgeLongerThanNanosecondsCountIsForeverAndNeverAnErrorAtRequestTime() {
		ServerProperties ageless = BoundProperties.of(Map.of("servers.up.url", "http://127.0.0.1:1/mcp",
				"servers.up.tools.annotations-max-age", "300000000000d")).servers().get("up");
		PublishedCatalogues forever = new PublishedCatalogues((context, list, until) -> {
			listings.incrementAndGet();
			return Mono.just(listed(true));
		}, id -> ageless, new ServerListings(), now::get);
		AtomicReference<Optional<Map<String, Object>>> first = new AtomicReference<>();
		forever.find(alice, "tools/list", "deploy", true).subscribe(first::set);
		assertThat(first.get()).hasValue(Map.of("readOnlyHint", true));

		now.addAndGet(java.time.Duration.ofDays(200 * 365).toNanos());
		assertThat(forever.known(alice, "tools/list", "deploy", true)).as("two centuries later")
			.hasValue(Map.of("readOnlyHint", true));
		assertThat(listings.get()).isEqualTo(1);
	}

	private static UpstreamLister.Listed listed(boolean readOnly) {
		return new UpstreamLister.Listed(List.of(tool(readOnly)), true);
	}

	private static JsonNode tool(boolean readOnly) {
		var tool = JsonRpcParser.mapper().createObjectNode().put("name", "deploy");
		tool.putObject("annotations").put("readOnlyHint", readOnly);
		return tool;
	}

}
