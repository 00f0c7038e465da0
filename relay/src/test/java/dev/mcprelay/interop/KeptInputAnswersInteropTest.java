package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.RawHttp;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Review 46m's M1: a 2025 client bridged to a 2026-only server answers one of a round's two questions and not the
 * other; the round keeps that answer until the other comes or the round ends, past the 202 of the POST that brought it.
 * What is kept counts in the caller's share of {@code max-buffered-bodies} (the gauge shows it) while kept, and leaves
 * it when the round goes on or ends; the answer its share has no room for is refused (503, {@code relay_overloaded})
 * while another caller is served, and its round still waits for it. The server is the TypeScript SDK v2, 2026-07-28
 * only, whose tool asks two elicitations in one round ({@code interop/two-questions-2026-server.mjs}).
 */
class KeptInputAnswersInteropTest {

	private static final ObjectMapper JSON = new ObjectMapper();

	private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
			+ "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{\"form\":{}}},\"clientInfo\":"
			+ "{\"name\":\"raw\",\"version\":\"1\"}}}";

	/** An answer's text: three fit alice's share (3 MB) with the fourth's reading, not four. */
	private static final int ANSWER_CHARS = 700_000;

	private static NodePeers.NodeServer server;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("two-questions-2026-server.mjs");
		relay = TwoCallersOnATightBudget.start("two", server.url(), "--mcp-relay.servers.two.protocol-versions=2026-07-28");
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@Test
	void keptAnswersCountInTheCallersShareWhileKeptAndTheOnePastItIsRefused() throws Exception {
		RawHttp alice = TwoCallersOnATightBudget.alice(relay);
		RawHttp bob = TwoCallersOnATightBudget.bob(relay);
		String session = alice.send(alice.post("two", INITIALIZE)).headers().firstValue("Mcp-Session-Id")
			.orElseThrow();
		List<Round> rounds = new ArrayList<>();
		for (int call = 11; call <= 13; call++) {
			rounds.add(Round.open(alice, session, call));
		}
		double atRest = held();

		assertThat(answer(alice, session, rounds.get(0).a, "x".repeat(ANSWER_CHARS)).statusCode()).isEqualTo(202);
		assertThat(answer(alice, session, rounds.get(1).a, "y".repeat(ANSWER_CHARS)).statusCode()).isEqualTo(202);
		assertThat(held() - atRest).as("two answers kept past their POSTs' 202, in the gauge")
			.isGreaterThanOrEqualTo(2.0 * ANSWER_CHARS);

		HttpResponse<String> refused = answer(alice, session, rounds.get(2).a, "z".repeat(ANSWER_CHARS));
		assertThat(refused.statusCode()).as("the answer past alice's share: %s", refused.body()).isEqualTo(503);
		assertThat(RawHttp.json(refused.body()).at("/error/data/reason").asText()).isEqualTo("relay_overloaded");
		assertThat(bridge().awaitedInputAnswers()).as("every round still waits for its unanswered questions")
			.isEqualTo(4);
		assertThat(bob.send(bob.post("two", INITIALIZE)).statusCode()).as("another caller is served").isEqualTo(200);

		assertThat(answer(alice, session, rounds.get(0).b, "done").statusCode()).isEqualTo(202);
		JsonNode result = rounds.get(0).result();
		JsonNode sizes = JSON.readTree(result.at("/result/content/0/text").asText());
		assertThat(sizes.path("a").asInt()).as("the kept answer reached the server whole: %s", result)
			.isGreaterThan(ANSWER_CHARS);
		waitFor(() -> held() - atRest < ANSWER_CHARS + 100_000);
		// what is left: the other round's kept answer (the ended call's own small lease left too)
		assertThat(held() - atRest).as("the round went on: its kept answer left the gauge")
			.isLessThan(ANSWER_CHARS + 100_000.0).isGreaterThan(ANSWER_CHARS - 10_000.0);

		rounds.get(1).close();
		rounds.get(2).close();
		waitFor(() -> held() == 0 && bridge().awaitedInputAnswers() == 0);
		assertThat(held()).as("the other rounds ended with their streams: nothing kept").isZero();
		assertThat(bridge().awaitedInputAnswers()).isZero();
	}

	private static HttpResponse<String> answer(RawHttp caller, String session, String id, String text) {
		String body = "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"result\":{\"action\":\"accept\",\"content\":"
				+ "{\"v\":\"" + text + "\"}}}";
		return caller.send(caller.post("two", body).header("Mcp-Session-Id", session)
			.header("MCP-Protocol-Version", "2025-11-25"));
	}

	private static double held() {
		return relay.getBean(MeterRegistry.class).get(RelayMeters.BUFFERED_BODIES).gauge().value();
	}

	/** Waits for what a closed stream sets off on the relay (the round's end), or for 20 s. */
	private static void waitFor(BooleanSupplier done) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!done.getAsBoolean() && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
	}

	private static dev.mcprelay.bridge.VersionBridge bridge() {
		dev.mcprelay.proxy.Upstream upstream = relay.getBean(dev.mcprelay.proxy.UpstreamRegistry.class).find("two");
		return (dev.mcprelay.bridge.VersionBridge) relay.getBean(dev.mcprelay.proxy.UpstreamTransports.class)
			.of(upstream);
	}

	/** A call of {@code two} whose stream carries the round's two questions, read up to them. */
	private record Round(InputStream stream, BufferedReader lines, String a, String b) {

		static Round open(RawHttp caller, String session, int id) throws Exception {
			HttpResponse<InputStream> call = caller.open(caller.post("two", "{\"jsonrpc\":\"2.0\",\"id\":" + id
					+ ",\"method\":\"tools/call\",\"params\":{\"name\":\"two\",\"arguments\":{}}}")
				.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25"));
			BufferedReader lines = new BufferedReader(new InputStreamReader(call.body(), StandardCharsets.UTF_8));
			List<String> ids = new ArrayList<>();
			String line;
			while (ids.size() < 2 && (line = lines.readLine()) != null) {
				if (line.startsWith("data:") && line.contains("elicitation/create")) {
					ids.add(JSON.readTree(line.substring(5)).path("id").asText());
				}
			}
			assertThat(ids).as("the round's two questions, on call %s's stream", id).hasSize(2);
			return new Round(call.body(), lines, ids.get(0), ids.get(1));
		}

		JsonNode result() throws Exception {
			String line;
			while ((line = lines.readLine()) != null) {
				if (line.startsWith("data:") && line.contains("\"result\"")) {
					return JSON.readTree(line.substring(5));
				}
			}
			throw new AssertionError("the call's stream ended with no result");
		}

		void close() throws Exception {
			stream.close();
		}

	}

}
