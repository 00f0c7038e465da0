package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.security.RelayMac;
import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.ServerRequestGate;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Review 46c, HIGH 9: a 2025 server's {@code elicitation/create} on a bridged call's stream became the 2026 client's
 * {@code input_required} before any server-to-client stage saw it, so a policy that denies it (as it does for a 2025
 * client) was bypassed. The bridge now asks the exchange's {@link ServerRequestGate} first: a refusal answers the
 * server in the call's session, the client is never asked, and the call goes on to the server's result. Against a
 * scripted 2025 server that elicits on the call's stream and ends the call with what it was answered.
 */
class GatedServerRequestsTest {

	private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
			+ "\"ask\",\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"gated\",\"version\":\"1\"}}}}";

	@Test
	void aServerRequestTheStagesRefuseAnswersTheServerAndNeverReachesTheClient() throws Exception {
		Eliciting server = new Eliciting();
		List<String> decided = new CopyOnWriteArrayList<>();
		ServerRequestGate deny = request -> {
			decided.add(request.path("method").asText() + " " + request.path("id").asText());
			ObjectNode refusal = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
			refusal.set("id", request.get("id"));
			refusal.putObject("error").put("code", -32000).put("message", "The client does not take "
					+ "elicitation/create here");
			return Mono.just(new ServerRequestGate.Decision(null, refusal, List.of()));
		};

		String answered = send(bridge(server), deny);
		assertThat(decided).as("the stages saw the server's request under its own id")
			.containsExactly("elicitation/create e1");
		assertThat(server.answers).as("the server got the refusal in the call's session").hasSize(1);
		assertThat(server.answers.get(0)).contains("\"id\":\"e1\"").contains("does not take elicitation/create");
		assertThat(answered).as("%s", answered).doesNotContain("input_required").doesNotContain("inputRequests")
			.contains("\"id\":7").contains("refused: The client does not take elicitation/create here");
	}

	@Test
	void aServerRequestTheStagesCarryIsAskedAsTheyLeftIt() throws Exception {
		ServerRequestGate carry = request -> {
			ObjectNode changed = request.deepCopy();
			((ObjectNode) changed.get("params")).put("message", "asked by the stages");
			return Mono.just(new ServerRequestGate.Decision(changed, null, List.of()));
		};
		String answered = send(bridge(new Eliciting()), carry);
		assertThat(answered).as("%s", answered).contains("input_required").contains("asked by the stages");
	}

	private static VersionBridge bridge(UpstreamTransport server) {
		return new VersionBridge(server, "g", new ServerVersions("g", List.of("2025-11-25")), 65536,
				new BridgedStreamsTest.Kept(), BridgedStreamsTest.flightsOf(null), Duration.ofSeconds(60),
				new RelayMac((String) null), Duration.ofSeconds(60));
	}

	private static String send(VersionBridge bridge, ServerRequestGate gate) throws Exception {
		HttpHeaders headers = new HttpHeaders();
		headers.set("MCP-Protocol-Version", "2026-07-28");
		UpstreamRequest request = new UpstreamRequest("g", HttpMethod.POST, URI.create("http://127.0.0.1:1/mcp"),
				headers, CALL.getBytes(StandardCharsets.UTF_8), "alice", null);
		CompletableFuture<String> answered = new CompletableFuture<>();
		bridge.send(request, response -> response.body().map(buffer -> {
			String text = buffer.toString(StandardCharsets.UTF_8);
			DataBufferUtils.release(buffer);
			return text;
		}).collectList().doOnNext(texts -> answered.complete(response.statusCode().value() + " "
				+ String.join("", texts))).then())
			.contextWrite(reactor.util.context.Context.of(ServerRequestGate.KEY, gate))
			.subscribe(null, failed -> answered.complete(failed.toString()));
		return answered.get(30, TimeUnit.SECONDS);
	}

	/**
	 * A 2025 server whose tool elicits on the call's stream ({@code e1}) and ends the call with a result that says what
	 * it was answered.
	 */
	private static final class Eliciting implements PostOnlyUpstream {

		final List<String> answers = new CopyOnWriteArrayList<>();

		private volatile Sinks.Many<byte[]> call;

		private volatile String callId;

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				request.onWritten().run();
				String body = new String(request.body(), StandardCharsets.UTF_8);
				HttpHeaders headers = new HttpHeaders();
				headers.setContentType(MediaType.APPLICATION_JSON);
				if (body.contains("\"method\":\"initialize\"")) {
					headers.set("Mcp-Session-Id", "s-1");
					return handler.apply(LocalUpstreamResponse.json(headers, ("{\"jsonrpc\":\"2.0\",\"id\":"
							+ "\"mcp-relay-initialize\",\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
							+ "{\"tools\":{}},\"serverInfo\":{\"name\":\"e\",\"version\":\"1\"}}}")
						.getBytes(StandardCharsets.UTF_8)));
				}
				if (body.contains("\"method\":\"tools/call\"")) {
					callId = dev.mcprelay.testsupport.RawHttp.json(body).path("id").asText();
					call = Sinks.many().unicast().onBackpressureBuffer();
					call.tryEmitNext(SseEventWriter.message("{\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"method\":"
							+ "\"elicitation/create\",\"params\":{\"message\":\"yes?\",\"requestedSchema\":{\"type\":"
							+ "\"object\",\"properties\":{}}}}"));
					HttpHeaders stream = new HttpHeaders();
					return handler.apply(LocalUpstreamResponse.eventStream(stream, call.asFlux()));
				}
				if (body.contains("\"id\":\"e1\"") && !body.contains("\"method\"")) {
					assertThat(request.sessionId()).isEqualTo("s-1");
					answers.add(body);
					String text = body.contains("\"error\"") ? "refused: "
							+ dev.mcprelay.testsupport.RawHttp.json(body).path("error").path("message").asText()
							: "answered";
					call.tryEmitNext(SseEventWriter.message("{\"jsonrpc\":\"2.0\",\"id\":\"" + callId + "\","
							+ "\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}]}}"));
					call.tryEmitComplete();
				}
				return handler.apply(LocalUpstreamResponse.empty(HttpStatus.ACCEPTED));
			});
		}


	}

}
