package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * The checks of a 2026-07-28 request the relay makes for a session-era server it bridges to ({@link ModernEnvelope}),
 * with the codes and statuses the official conformance suite's {@code server-stateless} scenario asks of a 2026-07-28
 * server (ConformanceSuiteInteropTest runs that scenario through the bridge).
 */
class ModernEnvelopeTest {

	private static final String ENVELOPE = "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":{\"name\":\"c\","
			+ "\"version\":\"1\"}";

	@Test
	void aWholeRequestPasses() {
		assertThat(ModernEnvelope.check(request("tools/list", "{\"_meta\":{" + ENVELOPE + "}}"), "2026-07-28", "s"))
			.isNull();
	}

	@Test
	void aRequestWithoutItsEnvelopeIsInvalidParams() {
		for (String params : new String[] { "{}", "{\"_meta\":5}",
				"{\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{}}}",
				"{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}" }) {
			ModernEnvelope.Refusal refusal = ModernEnvelope.check(request("server/discover", params), "2026-07-28", "s");
			assertThat(refusal).as(params).isNotNull();
			assertThat(refusal.status()).isEqualTo(HttpStatus.BAD_REQUEST);
			assertThat(code(refusal)).isEqualTo(-32602);
			assertThat(refusal.error().path("id").asInt()).as("under the request's id").isEqualTo(7);
			assertThat(refusal.error().at("/error/data/reason").asText()).isEqualTo("bridge_envelope_invalid");
		}
	}

	@Test
	void aVersionTheHeaderDoesNotNameIsAHeaderMismatch() {
		ModernEnvelope.Refusal refusal = ModernEnvelope.check(request("server/discover",
				"{\"_meta\":{" + ENVELOPE.replace("2026-07-28", "v999.0.0") + "}}"), "2026-07-28", "s");
		assertThat(refusal.status()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(code(refusal)).isEqualTo(-32020);
	}

	@Test
	void aVersionTheBridgeDoesNotSpeakIsRefusedNamingTheOneItDoes() {
		ModernEnvelope.Refusal refusal = ModernEnvelope.check(request("server/discover",
				"{\"_meta\":{" + ENVELOPE.replace("2026-07-28", "v999.0.0") + "}}"), "v999.0.0", "s");
		assertThat(refusal.status()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(code(refusal)).isEqualTo(-32022);
		assertThat(refusal.error().at("/error/data/supported").toString()).isEqualTo("[\"2026-07-28\"]");
		assertThat(refusal.error().at("/error/data/requested").asText()).isEqualTo("v999.0.0");
	}

	@Test
	void aMethodThe2026RevisionRemovedIsNotFound() {
		for (String method : new String[] { "initialize", "ping", "logging/setLevel", "resources/subscribe",
				"resources/unsubscribe" }) {
			ModernEnvelope.Refusal refusal = ModernEnvelope.check(request(method, "{\"_meta\":{" + ENVELOPE + "}}"),
					"2026-07-28", "s");
			assertThat(refusal).as(method).isNotNull();
			assertThat(refusal.status()).isEqualTo(HttpStatus.NOT_FOUND);
			assertThat(code(refusal)).isEqualTo(-32601);
		}
	}

	private static ObjectNode request(String method, String params) {
		try {
			return (ObjectNode) JsonRpcParser.mapper()
				.readTree("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"" + method + "\",\"params\":" + params + "}");
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private static int code(ModernEnvelope.Refusal refusal) {
		JsonNode error = refusal.error().path("error");
		return error.path("code").asInt();
	}

}
