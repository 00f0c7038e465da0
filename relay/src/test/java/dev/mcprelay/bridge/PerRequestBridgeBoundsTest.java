package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import dev.mcprelay.security.RelayMac;
import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Review 46b, MED 6, 7 and 8: the bounds of direction 2's upstream sessions and held calls, against a scripted 2025
 * server (faults no real server makes on demand: an {@code initialize} never answered, a session forgotten with a 400,
 * as the reference server after a restart answers "No valid session ID provided").
 */
class PerRequestBridgeBoundsTest {

	static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{\"sampling\":{}},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"bounded\",\"version\":\"1\"}}";

	static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"tools/call\",\"params\":{\"name\":"
			+ "\"ask\",\"arguments\":{}," + META + "}}";

	/**
	 * One whole exchange first, so that no test's bound races the class's cold start (classes loaded, paths compiled:
	 * seconds on a loaded machine).
	 */
	@BeforeAll
	static void warm() throws Exception {
		dev.mcprelay.session.SessionIds.mint();
		warmUp();
	}

	/** One call through a bridge to a server that answers it: the bridge's paths loaded before a test's bounds run. */
	static void warmUp() throws Exception {
		send(bridge(request -> answer(request, "{\"jsonrpc\":\"2.0\",\"id\":\"ID\",\"result\":{\"content\":[]}}")),
				CALL.replace("ID", "0")).get(120, TimeUnit.SECONDS);
	}

	/** MED 6: an initialize the server never answers fails at the server's non-streaming bound, and is forgotten. */
	@Test
	void anInitializeNeverAnsweredFailsAtItsBoundAndTheNextRequestOpensAnew() throws Exception {
		AtomicInteger initializes = new AtomicInteger();
		VersionBridge bridge = bridge(request -> {
			if (body(request).contains("\"initialize\"") && initializes.incrementAndGet() == 1) {
				return null; // never answered
			}
			return answer(request, "{\"jsonrpc\":\"2.0\",\"id\":\"ID\",\"result\":{\"content\":[]}}");
		});

		String failed = send(bridge, CALL.replace("ID", "1")).get(30, TimeUnit.SECONDS);
		assertThat(failed).as("the opening failed at its bound").contains("did not answer the relay's initialize");
		String answered = send(bridge, CALL.replace("ID", "2")).get(30, TimeUnit.SECONDS);
		assertThat(answered).as("opened anew: %s", answered).contains("\"id\":2").contains("\"resultType\":\"complete\"");
		assertThat(initializes).hasValue(2);
	}

	/** MED 7: a caller's held calls of one server are bounded; one more is answered at once with a clear error. */
	@Test
	void aCallersHeldCallsAreBoundedAndOneMoreIsAnsweredAtOnce() throws Exception {
		VersionBridge bridge = bridge(request -> answer(request, null));
		for (int call = 1; call <= HeldCalls.MAX_PER_CALLER; call++) {
			assertThat(send(bridge, CALL.replace("ID", String.valueOf(call))).get(30, TimeUnit.SECONDS))
				.contains("input_required");
		}
		assertThat(bridge.heldCalls()).isEqualTo(HeldCalls.MAX_PER_CALLER);
		String refused = send(bridge, CALL.replace("ID", "99")).get(30, TimeUnit.SECONDS);
		assertThat(refused).contains("held_calls_full").contains("\"id\":99").doesNotContain("input_required");
		assertThat(bridge.heldCalls()).isEqualTo(HeldCalls.MAX_PER_CALLER);
	}

	/** MED 8: a 400 that answers no request of the session's (the server forgot it) opens the session again, once. */
	@Test
	void aSessionTheServerForgotAndAnswers400IsOpenedAgainOnce() throws Exception {
		AtomicInteger initializes = new AtomicInteger();
		AtomicInteger calls = new AtomicInteger();
		VersionBridge bridge = bridge(request -> {
			String body = body(request);
			if (body.contains("\"initialize\"")) {
				initializes.incrementAndGet();
			}
			else if ((body.contains("tools/call") && calls.incrementAndGet() == 1) || body.contains("\"ping\"")) {
				// the forgotten session's check (a ping in it) is refused as the request was
				HttpHeaders headers = new HttpHeaders();
				headers.setContentType(MediaType.APPLICATION_JSON);
				return LocalUpstreamResponse.replay(HttpStatus.BAD_REQUEST, headers, ("{\"jsonrpc\":\"2.0\",\"error\":"
						+ "{\"code\":-32000,\"message\":\"Bad Request: No valid session ID provided\"},\"id\":null}")
					.getBytes(StandardCharsets.UTF_8));
			}
			return answer(request, "{\"jsonrpc\":\"2.0\",\"id\":\"ID\",\"result\":{\"content\":[]}}");
		});

		String answered = send(bridge, CALL.replace("ID", "1")).get(30, TimeUnit.SECONDS);
		assertThat(answered).as("%s", answered).startsWith("200 ").contains("\"resultType\":\"complete\"");
		assertThat(initializes).as("opened again").hasValue(2);
	}

	/**
	 * The scripted server's answer to {@code request}: an initialize's result in a new session, 202 to a notification
	 * or a response, {@code result} (its id the request's) to a call; with {@code result} null, a call is answered with
	 * a stream that asks the client for a sampling and stays open.
	 */
	static UpstreamResponse answer(UpstreamRequest request, String result) {
		String body = body(request);
		String id = dev.mcprelay.testsupport.RawHttp.json(body).path("id").asText();
		HttpHeaders headers = new HttpHeaders();
		if (body.contains("\"initialize\"")) {
			headers.setContentType(MediaType.APPLICATION_JSON);
			headers.set("Mcp-Session-Id", "s-" + System.nanoTime());
			return LocalUpstreamResponse.json(headers, ("{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"result\":"
					+ "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":"
					+ "\"scripted\",\"version\":\"1\"}}}").getBytes(StandardCharsets.UTF_8));
		}
		if (!body.contains("\"method\":\"tools/call\"")) {
			return LocalUpstreamResponse.empty(HttpStatus.ACCEPTED);
		}
		if (result != null) {
			headers.setContentType(MediaType.APPLICATION_JSON);
			return LocalUpstreamResponse.json(headers, result.replace("ID", id).getBytes(StandardCharsets.UTF_8));
		}
		return LocalUpstreamResponse.eventStream(headers, Flux.just(SseEventWriter.message("{\"jsonrpc\":\"2.0\","
				+ "\"id\":\"sampling-" + id + "\",\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],"
				+ "\"maxTokens\":5}}")).concatWith(Flux.never()));
	}

	static String body(UpstreamRequest request) {
		return request.body() == null ? "" : new String(request.body(), StandardCharsets.UTF_8);
	}

	private static VersionBridge bridge(Function<UpstreamRequest, UpstreamResponse> server) {
		return new VersionBridge(new Scripted(server), "b", new ServerVersions("b", List.of("2025-11-25")), 65536,
				new BridgedStreamsTest.Kept(), BridgedStreamsTest.flightsOf(null), Duration.ofSeconds(60),
				new RelayMac((String) null),
				Duration.ofMillis(500));
	}

	static CompletableFuture<String> send(VersionBridge bridge, String body) {
		return send(bridge, "b", body);
	}

	/** What {@code bridge} (of server {@code serverId}) answers a 2026-07-28 POST of {@code body}, status first. */
	static CompletableFuture<String> send(VersionBridge bridge, String serverId, String body) {
		HttpHeaders headers = new HttpHeaders();
		headers.set("MCP-Protocol-Version", "2026-07-28");
		UpstreamRequest request = new UpstreamRequest(serverId, HttpMethod.POST, URI.create("http://127.0.0.1:1/mcp"),
				headers, body.getBytes(StandardCharsets.UTF_8), "alice", null);
		CompletableFuture<String> answered = new CompletableFuture<>();
		bridge.send(request, response -> response.body().map(buffer -> {
			String text = buffer.toString(StandardCharsets.UTF_8);
			DataBufferUtils.release(buffer);
			return text;
		}).collectList().doOnNext(texts -> answered.complete(response.statusCode().value() + " "
				+ String.join("", texts))).then()).subscribe(null, failed -> answered.complete(failed.toString()));
		return answered;
	}

	/** A 2025 server as {@code answer} scripts it ({@code null}: never answered). */
	private record Scripted(Function<UpstreamRequest, UpstreamResponse> answer) implements PostOnlyUpstream {

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				UpstreamResponse response = answer.apply(request);
				request.onWritten().run();
				return response == null ? Mono.never() : handler.apply(response);
			});
		}


	}

}
