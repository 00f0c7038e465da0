package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * What the relay knows of a server's protocol versions: pinned ones stay, learnt ones come from a refused
 * {@code initialize}'s {@code error.data.supported}, and only a server with no version of the client's generation is
 * bridged.
 */
class ServerVersionsTest {

	private static final String REFUSAL = "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32022,\"message\":\"Unsupported "
			+ "protocol version: 2025-11-25\",\"data\":{\"supported\":[\"2025-06-18\",\"2026-07-28\"],\"requested\":\"2025-11-25\"}},\"id\":1}";

	private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
			+ "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}";

	@Test
	void unknownVersionsBridgeNothingAndOnlyAnotherGenerationIsBridged() {
		ServerVersions versions = new ServerVersions("s", List.of());
		assertThat(versions.bridges("2025-11-25")).as("nothing known yet: relayed as it comes").isFalse();
		versions.learn(List.of("2026-07-28"));
		assertThat(versions.bridges("2025-11-25")).as("a 2025 client of a 2026-only server").isTrue();
		assertThat(versions.bridges("2025-03-26")).as("any session-era version").isTrue();
		assertThat(versions.bridges("2026-07-28")).as("a same-version pair").isFalse();
		versions.learn(List.of("2025-06-18", "2026-07-28"));
		assertThat(versions.bridges("2025-11-25")).as("the server negotiates a 2025 version itself").isFalse();
	}

	/**
	 * Review 46e, N2: a {@code server/discover} answer names the new generation's versions only; it adds them and
	 * leaves the session era open: 2025 clients are bridged only once an answer to one proves the server speaks none.
	 */
	@Test
	void aDiscoverAnswerAddsTheNewGenerationAndNarrowsNothing() {
		ServerVersions versions = new ServerVersions("s", List.of());
		versions.learnNewGeneration(List.of("2026-07-28"));
		assertThat(versions.known()).containsExactly("2026-07-28");
		assertThat(versions.bridges("2025-11-25")).as("the session era is not proved absent").isFalse();
		assertThat(versions.bridges("2026-07-28")).isFalse();
		versions.learn(List.of("2026-07-28"));
		assertThat(versions.bridges("2025-11-25")).as("a refusal naming them proves it").isTrue();

		ServerVersions both = new ServerVersions("s", List.of());
		both.learn(List.of("2025-11-25"));
		both.learnNewGeneration(List.of("2026-07-28", "2025-11-25"));
		assertThat(both.known()).containsExactlyInAnyOrder("2025-11-25", "2026-07-28");
		assertThat(both.bridges("2025-11-25")).isFalse();
	}

	@Test
	void pinnedVersionsAreNeverReplacedAndNamesThatAreNoVersionsAreNotKept() {
		ServerVersions pinned = new ServerVersions("s", List.of("2026-07-28"));
		pinned.learn(List.of("2025-11-25"));
		assertThat(pinned.known()).containsExactly("2026-07-28");

		ServerVersions learnt = new ServerVersions("s", List.of());
		learnt.learn(List.of("<script>", "2026-07-28"));
		assertThat(learnt.known()).containsExactly("2026-07-28");
	}

	/**
	 * Issue 46 review K, finding 5: learnt versions are revised when the server answers as the other generation (it was
	 * redeployed), but a server that lies cannot make the relay change its mind on every request.
	 */
	@Test
	void learntVersionsAreRevisedWithinABoundAndPinnedOnesNever() {
		java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000);
		ServerVersions versions = new ServerVersions("s", List.of(), now::get);
		versions.learn(List.of("2026-07-28"));
		assertThat(versions.bridges("2025-11-25")).isTrue();

		versions.learn(List.of("2025-11-25"));
		assertThat(versions.known()).as("redeployed as a 2025 server: revised").containsExactly("2025-11-25");
		assertThat(versions.forget("test")).as("forgotten: a second revision").isTrue();
		assertThat(versions.known()).isEmpty();
		assertThat(versions.forget("test")).as("nothing known: nothing to forget").isFalse();
		versions.learn(List.of("2026-07-28"));
		assertThat(versions.known()).as("learnt again: no revision").containsExactly("2026-07-28");
		versions.learn(List.of("2025-11-25"));
		assertThat(versions.known()).as("the third revision").containsExactly("2025-11-25");

		versions.learn(List.of("2026-07-28"));
		assertThat(versions.forget("test")).isFalse();
		assertThat(versions.mayProbe()).as("no exchange spent to prove what cannot be revised").isFalse();
		assertThat(versions.known()).as("a fourth within the window is ignored").containsExactly("2025-11-25");

		now.addAndGet(ServerVersions.REVISION_WINDOW.toNanos());
		versions.learn(List.of("2026-07-28"));
		assertThat(versions.known()).as("once the window has passed").containsExactly("2026-07-28");

		ServerVersions pinned = new ServerVersions("s", List.of("2026-07-28"), now::get);
		assertThat(pinned.forget("test")).isFalse();
		assertThat(pinned.mayProbe()).isFalse();
		assertThat(pinned.known()).containsExactly("2026-07-28");
	}

	/**
	 * Review 46l, N3: past the bound, the check of a refusal is stopped before any revision is tried, so the WARN the
	 * docs promise was never logged. It is logged once, when the bound first stops a check, naming the server and
	 * until when its versions stay unchecked; once more only after a later revision reached the bound again.
	 */
	@Test
	void theBoundStoppingACheckIsLoggedOnceAtWarn() {
		ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
			.getLogger(ServerVersions.class);
		ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged = new ch.qos.logback.core.read.ListAppender<>();
		logged.start();
		logger.addAppender(logged);
		try {
			java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000);
			ServerVersions versions = new ServerVersions("redeployed-often", List.of(), now::get);
			versions.learn(List.of("2026-07-28"));
			versions.learn(List.of("2025-11-25"));
			versions.learn(List.of("2026-07-28"));
			now.addAndGet(java.time.Duration.ofMinutes(1).toNanos());
			versions.learn(List.of("2025-11-25"));
			assertThat(warnings(logged)).as("three revisions: within the bound").isEmpty();

			now.addAndGet(ServerVersions.PROBE_INTERVAL.toNanos());
			assertThat(versions.mayProbe()).as("the fourth redeploy's refusal is not checked").isFalse();
			now.addAndGet(ServerVersions.PROBE_INTERVAL.toNanos());
			assertThat(versions.mayProbe()).isFalse();
			versions.learn(List.of("2026-07-28"));

			assertThat(warnings(logged)).as("logged once, by the check the bound stopped").hasSize(1);
			String line = warnings(logged).get(0);
			assertThat(line).contains("'redeployed-often'", "[2025-11-25]", "revised 3 times", "unchecked, until ",
					"(530 s from now)", "pin them with protocol-versions");

			now.addAndGet(ServerVersions.REVISION_WINDOW.toNanos());
			assertThat(versions.mayProbe()).as("the window passed").isTrue();
			versions.learn(List.of("2026-07-28"));
			versions.learn(List.of("2025-11-25"));
			versions.learn(List.of("2026-07-28"));
			now.addAndGet(ServerVersions.PROBE_INTERVAL.toNanos());
			assertThat(versions.mayProbe()).isFalse();
			assertThat(warnings(logged)).as("reached again after new revisions: logged again").hasSize(2);
		}
		finally {
			logger.detachAppender(logged);
		}
	}

	private static List<String> warnings(
			ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged) {
		return logged.list.stream()
			.filter(event -> event.getLevel() == ch.qos.logback.classic.Level.WARN)
			.map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
			.toList();
	}

	@Test
	void anExchangeToProveKnownVersionsWrongIsSpentOncePerInterval() {
		java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000);
		ServerVersions versions = new ServerVersions("s", List.of(), now::get);
		assertThat(versions.mayProbe()).as("unknown versions: the first refusal's probe is the learning's").isFalse();
		versions.learn(List.of("2026-07-28"));
		assertThat(versions.mayProbe()).isTrue();
		assertThat(versions.mayProbe()).as("within the interval").isFalse();
		now.addAndGet(ServerVersions.PROBE_INTERVAL.toNanos());
		assertThat(versions.mayProbe()).isTrue();
	}

	@Test
	void aRefusedInitializeTeachesTheVersionsItNamesAndIsHandedOnByteForByteWhenTheyNeedNoBridge() {
		ServerVersions versions = new ServerVersions("s", List.of());
		HttpHeaders headers = new HttpHeaders();
		headers.setContentType(MediaType.APPLICATION_JSON);
		headers.set("X-Server", "kept");
		UpstreamTransport refusing = new Answering(LocalUpstreamResponse.replay(HttpStatus.BAD_REQUEST, headers,
				REFUSAL.getBytes(StandardCharsets.UTF_8)));
		VersionBridge bridge = new VersionBridge(refusing, "s", versions, 1024 * 1024, null,
				new BridgeFlights(null, java.time.Duration.ofHours(1)),
				java.time.Duration.ofSeconds(60), new dev.mcprelay.security.RelayMac((String) null),
				java.time.Duration.ofSeconds(60));
		AtomicReference<String> handedOn = new AtomicReference<>();

		bridge.send(post(INITIALIZE), response -> {
			assertThat(response.statusCode().value()).isEqualTo(400);
			assertThat(response.headers().getFirst("X-Server")).isEqualTo("kept");
			return DataBufferUtils.join(response.body()).doOnNext(body -> {
				handedOn.set(body.toString(StandardCharsets.UTF_8));
				DataBufferUtils.release(body);
			}).then();
		}).block();

		assertThat(handedOn.get()).isEqualTo(REFUSAL);
		assertThat(versions.known()).containsExactlyInAnyOrder("2025-06-18", "2026-07-28");
	}

	@Test
	void aRequestThatIsNoSessionEraInitializeIsNotLookedInto() {
		assertThat(VersionBridge.sessionInitializeVersion(post(INITIALIZE))).isEqualTo("2025-11-25");
		assertThat(VersionBridge.sessionInitializeVersion(post(
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":\"initialize\"}}"))).isNull();
		assertThat(VersionBridge.sessionInitializeVersion(post(
				"[" + INITIALIZE + "]"))).as("a batch").isNull();
	}

	/**
	 * The method written with a JSON escape is the same method: a session-era client's {@code initialize} spelled
	 * <code>"initi&#92;u0061lize"</code> (or with any letter escaped) is still known for one, as the server reads it.
	 */
	@Test
	void anInitializeWhoseMethodIsWrittenWithEscapesIsStillOne() {
		for (String spelling : java.util.List.of("initi\\u0061lize", "\\u0069nitialize", "initializ\\u0065",
				"\\u0069\\u006E\\u0069\\u0074\\u0069\\u0061\\u006c\\u0069\\u007a\\u0065")) {
			assertThat(VersionBridge.sessionInitializeVersion(post(INITIALIZE.replace("\"initialize\"",
					"\"" + spelling + "\"")))).as(spelling).isEqualTo("2025-11-25");
		}
	}

	private static UpstreamRequest post(String body) {
		HttpHeaders headers = new HttpHeaders();
		return new UpstreamRequest("s", HttpMethod.POST, URI.create("http://127.0.0.1:1/mcp"), headers,
				body.getBytes(StandardCharsets.UTF_8), null, null);
	}

	/** A transport that answers every request with one response. */
	private record Answering(LocalUpstreamResponse answer) implements UpstreamTransport {

		@Override
		public Mono<Void> send(UpstreamRequest request, java.util.function.Function<dev.mcprelay.transport.UpstreamResponse, Mono<Void>> handler) {
			return handler.apply(answer);
		}

		@Override
		public Mono<Void> receive(UpstreamRequest request, java.util.function.Function<dev.mcprelay.transport.UpstreamResponse, Mono<Void>> handler) {
			return handler.apply(answer);
		}

		@Override
		public Mono<Void> close(UpstreamRequest request, java.util.function.Function<dev.mcprelay.transport.UpstreamResponse, Mono<Void>> handler) {
			return handler.apply(answer);
		}

	}

}
