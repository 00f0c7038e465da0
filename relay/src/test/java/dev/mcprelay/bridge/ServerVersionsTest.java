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

	@Test
	void pinnedVersionsAreNeverReplacedAndNamesThatAreNoVersionsAreNotKept() {
		ServerVersions pinned = new ServerVersions("s", List.of("2026-07-28"));
		pinned.learn(List.of("2025-11-25"));
		assertThat(pinned.known()).containsExactly("2026-07-28");

		ServerVersions learnt = new ServerVersions("s", List.of());
		learnt.learn(List.of("<script>", "2026-07-28"));
		assertThat(learnt.known()).containsExactly("2026-07-28");
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
