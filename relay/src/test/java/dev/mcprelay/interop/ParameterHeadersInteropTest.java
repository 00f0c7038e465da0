package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.testsupport.RawHttp;
import reactor.core.publisher.Mono;

/**
 * {@code Mcp-Param-*} headers (MCP 2026-07-28, SEP-2243) through the relay to a real 2026-07-28 server, the TypeScript
 * SDK v2 fixture of the conformance suite ({@code interop/conformance-server.mjs}, ERA 2026), whose tool
 * {@code test_x_mcp_header} declares {@code region} with {@code "x-mcp-header": "Region"} (and {@code level} without):
 * a header that says what the argument says goes on; one that contradicts it, in any case of its name, or names an
 * argument the call lacks, is refused by the relay itself ({@code header_mismatch}, review 43g N-3) before the server
 * sees it; a header the tool does not declare goes on untouched; when an interceptor changes or removes the mirrored
 * argument, the header the server gets says what it gets (the server checks it); and a tool hidden from the caller
 * ({@code tools.deny}) is answered as a tool that does not exist whatever its headers say (review 43h F-0: the check
 * runs only on what the request stages let go); an argument an interceptor or {@code arguments.inject} adds to a call
 * that carried no parameter header goes with its header (review 43h F-1). A 2025 client, bridged to that server, gets
 * the headers its call's tool declares written for it, as a 2026 client writes them (review 43h F-6: the server
 * refused its call).
 */
class ParameterHeadersInteropTest {

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"},"
			+ "\"io.modelcontextprotocol/clientCapabilities\":{}}";

	private static final String TOOL = "test_x_mcp_header";

	private static NodePeers.NodeServer server;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("conformance-server.mjs", Map.of("ERA", "2026"));
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class,
				RegionChanger.class)
			.properties("server.port=0", "server.address=127.0.0.1", "mcp-relay.servers.v2026.url=" + server.url(),
					"mcp-relay.servers.v2026.protocol-versions=2026-07-28", "mcp-relay.servers.hidden.url=" + server.url(),
					"mcp-relay.servers.hidden.protocol-versions=2026-07-28",
					"mcp-relay.servers.hidden.tools.deny[0]=" + TOOL, "mcp-relay.servers.injects.url=" + server.url(),
					"mcp-relay.servers.injects.protocol-versions=2026-07-28",
					"mcp-relay.servers.injects.arguments.inject[0].name=region",
					"mcp-relay.servers.injects.arguments.inject[0].from-request-header=X-Region")
			.run();
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
	void aHeaderThatSaysWhatTheArgumentSaysGoesOnPlainOrInBase64() {
		assertThat(ran(call(1, "\"region\":\"us-west1\""), "Mcp-Param-Region", "us-west1")).contains("us-west1");
		assertThat(ran(call(2, "\"region\":\"us-west1\""), "mcp-param-region", "=?base64?dXMtd2VzdDE=?="))
			.contains("us-west1");
		assertThat(ran(call(3, "\"region\":\"Z\u00fcrich\""), "Mcp-Param-Region", "=?base64?WsO8cmljaA==?="))
			.contains("Z\u00fcrich");
	}

	@Test
	void aHeaderThatContradictsTheArgumentIsRefusedByTheRelay() {
		refused(call(4, "\"region\":\"us-west1\""), "Mcp-Param-Region", "eu-west1");
		refused(call(5, "\"region\":\"us-west1\""), "MCP-PARAM-REGION", "eu-west1");
		refused(call(6, "\"region\":\"us-west1\""), "Mcp-Param-Region", "=?base64?ZXUtd2VzdDE=?=");
		refused(call(7, "\"region\":\"us-west1\""), "Mcp-Param-Region", "US-WEST1");
		refused(call(8, "\"level\":1"), "Mcp-Param-Region", "us-west1");
		refused(call(9, "\"region\":null"), "Mcp-Param-Region", "null");
	}

	@Test
	void aHeaderTheToolDoesNotDeclareGoesOnUntouched() {
		assertThat(ran(call(10, "\"region\":\"us-west1\",\"level\":1"), "Mcp-Param-Region", "us-west1",
				"Mcp-Param-Level", "99")).contains("us-west1");
	}

	@Test
	void whenAnInterceptorChangesTheMirroredArgumentTheServerGetsAHeaderThatSaysWhatItGets() {
		// level 7: the interceptor sets region to eu-west1; the server refuses a header that does not say so
		assertThat(ran(call(11, "\"region\":\"us-west1\",\"level\":7"), "Mcp-Param-Region", "us-west1"))
			.contains("\"region\":\"eu-west1\"");
		// level 8: the interceptor removes region; the server refuses a header for an argument it does not get
		assertThat(ran(call(12, "\"region\":\"us-west1\",\"level\":8"), "Mcp-Param-Region", "us-west1"))
			.doesNotContain("region");
	}

	@Test
	void anArgumentAddedToACallWithoutParameterHeadersGoesWithItsHeader() {
		// review 43h F-1: only checked requests had their mirrored arguments' headers written
		assertThat(ran(call(14, "\"level\":7"))).as("the interceptor adds region").contains("\"region\":\"eu-west1\"");
		HttpResponse<String> injected = sendTo("injects", TOOL, call(15, "\"level\":1"), "X-Region", "eu-north1");
		assertThat(injected.statusCode()).as(injected.body()).isEqualTo(200);
		assertThat(RawHttp.messagesOf(injected).get(0).at("/result/content/0/text").asText())
			.as("arguments.inject adds region: %s", injected.body()).contains("\"region\":\"eu-north1\"");
	}

	/**
	 * Review 43j N-5: an injected argument whose header would be longer than the relay writes
	 * ({@link dev.mcprelay.transport.WrittenHeaderBound#MAX_BYTES}) refuses the call with a clear -32602 naming
	 * the header and the argument, not a 502 "could not be reached" when the server drops the request.
	 */
	@Test
	void anArgumentTooLargeForTheHeaderTheRelayWritesIsAClearError() {
		HttpResponse<String> refused = sendTo("injects", TOOL, call(16, "\"level\":1"), "X-Region",
				"r".repeat(dev.mcprelay.transport.WrittenHeaderBound.MAX_BYTES + 1));
		assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
		JsonNode error = RawHttp.messagesOf(refused).get(0).get("error");
		assertThat(error.get("code").asInt()).as("%s", error).isEqualTo(-32602);
		assertThat(error.at("/data/reason").asText()).isEqualTo("header_unwritable");
		assertThat(error.get("message").asText()).contains("Mcp-Param-Region").contains("params.arguments.region");
	}

	@Test
	void aHiddenToolIsAnsweredAsOneThatDoesNotExistWhateverItsHeadersSay() {
		HttpResponse<String> hidden = sendTo("hidden", TOOL, call(13, "\"region\":\"us-west1\""), "Mcp-Param-Region",
				"eu-west1");
		HttpResponse<String> withoutHeader = sendTo("hidden", TOOL, call(13, "\"region\":\"us-west1\""));
		assertThat(hidden.statusCode()).as(hidden.body()).isEqualTo(withoutHeader.statusCode());
		assertThat(hidden.body()).as("nothing says the tool exists").doesNotContain("header_mismatch")
			.doesNotContain("params.arguments.region")
			.isEqualTo(withoutHeader.body());
	}

	@Test
	void aTwentyTwentyFiveClientsBridgedCallGetsTheHeadersItsToolDeclares() {
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		dev.mcprelay.testsupport.McpSession session = dev.mcprelay.testsupport.McpSession.open(http, "v2026");
		assertThat(session.id()).as("the bridge's session").startsWith("mcp-bridge-");
		for (String region : new String[] { "us-east1", "Z\u00fcrich" }) {
			HttpResponse<String> answer = session.post("{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/call\","
					+ "\"params\":{\"name\":\"" + TOOL + "\",\"arguments\":{\"region\":\"" + region + "\"}}}");
			assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
			JsonNode result = RawHttp.messagesOf(answer).get(0);
			assertThat(result.has("result")).as("the server ran it: %s", answer.body()).isTrue();
			assertThat(result.at("/result/content/0/text").asText()).contains(region);
		}
	}

	/**
	 * Review 46k, K3: the header the bridge writes for a long declared argument had no bound: behind nginx the client
	 * got nginx's HTML 400, direct a 431 from the server. Past the relay's bound of the headers it writes, the call is
	 * answered -32602 {@code header_unwritable} naming the header, and nothing goes to the server; at the bound, the
	 * server runs it.
	 */
	@Test
	void aBridgedCallWhoseHeaderWouldBeTooLongIsAnsweredByTheRelay() {
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		dev.mcprelay.testsupport.McpSession session = dev.mcprelay.testsupport.McpSession.open(http, "v2026");
		String atTheBound = "x".repeat(dev.mcprelay.transport.WrittenHeaderBound.MAX_BYTES);
		HttpResponse<String> ran = session.post("{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"" + TOOL + "\",\"arguments\":{\"region\":\"" + atTheBound + "\"}}}");
		assertThat(RawHttp.messagesOf(ran).get(0).has("result")).as("the server ran it: %s", ran.body()).isTrue();

		for (String region : new String[] { atTheBound + "x", "\u00e9".repeat(1600), "x".repeat(9000) }) {
			HttpResponse<String> answer = session.post("{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"tools/call\","
					+ "\"params\":{\"name\":\"" + TOOL + "\",\"arguments\":{\"region\":\"" + region + "\"}}}");
			JsonNode error = RawHttp.messagesOf(answer).get(0).path("error");
			assertThat(error.path("code").asInt()).as("%s", answer.body()).isEqualTo(-32602);
			assertThat(error.at("/data/reason").asText()).isEqualTo("header_unwritable");
			assertThat(error.path("message").asText()).contains("Mcp-Param-Region");
			assertThat(RawHttp.messagesOf(answer).get(0).path("id").asInt()).isEqualTo(16);
		}
	}

	private static String ran(String body, String... headers) {
		HttpResponse<String> response = send(body, headers);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		JsonNode answer = RawHttp.messagesOf(response).get(0);
		assertThat(answer.has("result")).as(response.body()).isTrue();
		return answer.at("/result/content/0/text").asText();
	}

	private static void refused(String body, String header, String value) {
		HttpResponse<String> response = send(body, header, value);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		JsonNode error = RawHttp.messagesOf(response).get(0).get("error");
		assertThat(error.get("code").asInt()).isEqualTo(-32020);
		assertThat(error.at("/data/reason").asText()).as("the relay's refusal, not the server's: %s", error)
			.isEqualTo("header_mismatch");
		assertThat(error.get("message").asText()).contains("Mcp-Param-Region").contains("params.arguments.region");
	}

	private static HttpResponse<String> send(String body, String... headers) {
		return sendTo("v2026", TOOL, body, headers);
	}

	private static HttpResponse<String> sendTo(String serverName, String tool, String body, String... headers) {
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		var request = http.post(serverName, body)
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Name", tool);
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return http.send(request);
	}

	private static String call(int id, String arguments) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + TOOL
				+ "\",\"arguments\":{" + arguments + "}," + META + "}}";
	}

	/** Changes {@code region} to eu-west1 for a call with {@code level} 7, removes it for {@code level} 8. */
	@Configuration(proxyBeanMethods = false)
	static class RegionChanger {

		@Bean
		ToolsCallRequestInterceptor regionChanger() {
			return new ToolsCallRequestInterceptor() {

				@Override
				public String name() {
					return "region-changer";
				}

				@Override
				public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
					Object level = call.arguments().get("level");
					if (level instanceof Number number && number.intValue() == 7) {
						call.setArgument("region", "eu-west1");
					}
					if (level instanceof Number number && number.intValue() == 8) {
						call.removeArgument("region");
					}
					return Outcome.proceed();
				}

			};
		}

	}

}
