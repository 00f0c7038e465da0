package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * Server-side argument injection with the reserved {@code _} prefix (seed 001), against the SDK servers'
 * {@code whoami} tool, which declares {@code _tenant} (required) and {@code _trace} and answers with the arguments it
 * got. {@code sdk-args} injects {@code _tenant} from the X-Tenant header, and {@code region: eu} and {@code locale} from
 * the X-Locale header into {@code who*};
 * {@code sdk-json-args} injects {@code _tenant: acme}; {@code sdk-json-open} has no reserved prefix.
 */
class ArgumentPolicyTest extends InterceptorIntegrationTest {

	private static final String WHOAMI_SECRET_VALUE = "client-forged-tenant-9931";

	@ParameterizedTest(name = "{0}: published schemas lose reserved properties and their required entries")
	@ValueSource(strings = { "sdk-args", "sdk-json-args" })
	void publishedSchemasLoseReservedArguments(String server) {
		McpSession session = session(server);

		JsonNode whoami = tool(messages(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}")).get(0),
				"whoami");

		assertThat(whoami.at("/inputSchema/properties").fieldNames()).toIterable()
			.as("reserved properties are gone, the others stay").containsExactly("message", "region");
		assertThat(whoami.at("/inputSchema/required").toString()).isEqualTo("[\"message\"]");
		assertThat(whoami.at("/inputSchema/type").asText()).as("the rest of the schema is kept").isEqualTo("object");
		assertThat(whoami.path("description").asText()).isEqualTo("Answers with the arguments it received");
	}

	@Test
	void aClientCallWithReservedKeysIsRefusedNamingEveryKeyAndNothingIsForwarded() {
		McpSession session = session("sdk-args");
		upstream.clearSeen();
		int logsFrom = CapturedLogs.all().size();

		List<JsonNode> answer = messages(session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"whoami\",\"arguments\":{\"message\":\"hi\",\"_tenant\":\"" + WHOAMI_SECRET_VALUE
				+ "\",\"_trace\":\"t\"}}}"));

		assertThat(answer.get(0).at("/error/code").asInt()).isEqualTo(-32602);
		assertThat(answer.get(0).at("/error/message").asText())
			.isEqualTo("Reserved argument keys not allowed: _tenant, _trace");
		assertThat(upstreamReceived("tools/call")).as("nothing forwarded").isEmpty();
		List<String> logged = CapturedLogs.since(logsFrom);
		assertThat(logged).as("the refusal is logged with the tool and the keys")
			.anyMatch(line -> line.contains("whoami") && line.contains("_tenant") && line.contains("_trace"))
			.as("never with the values").noneMatch(line -> line.contains(WHOAMI_SECRET_VALUE));
	}

	@Test
	void injectedArgumentsWinOverTheClientsAndNestedKeysAreUntouched() {
		McpSession session = session("sdk-args");
		upstream.clearSeen();

		List<JsonNode> answer = messages(http().send(session.request("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"whoami\",\"arguments\":{\"message\":\"hi\",\"region\":\"us\","
				+ "\"options\":{\"_nested\":1}}}}")
			.header("X-Tenant", "acme")));

		JsonNode received = RawHttp.json(answer.get(answer.size() - 1).at("/result/content/0/text").asText());
		assertThat(received.path("_tenant").asText()).as("injected from the X-Tenant header").isEqualTo("acme");
		assertThat(received.path("region").asText()).as("the server's value wins over the client's").isEqualTo("eu");
		assertThat(received.at("/options/_nested").asInt()).as("nested keys are not the relay's business").isEqualTo(1);
		assertThat(received.path("message").asText()).isEqualTo("hi");
	}

	@Test
	void anInjectedArgumentWhoseHeaderIsMissingIsTheRelaysToSetAndTheClientsValueGoes() {
		McpSession session = session("sdk-args");
		String call = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"whoami\","
				+ "\"arguments\":{\"message\":\"hi\",\"locale\":\"client-chosen\"}}}";

		List<JsonNode> without = messages(http().send(session.request(call).header("X-Tenant", "acme")));
		List<JsonNode> with = messages(http().send(session.request(call).header("X-Tenant", "acme")
			.header("X-Locale", "de")));

		JsonNode receivedWithout = RawHttp.json(without.get(without.size() - 1).at("/result/content/0/text").asText());
		assertThat(receivedWithout.has("locale")).as("the header is missing: the client's value does not stand in for it")
			.isFalse();
		assertThat(receivedWithout.path("message").asText()).isEqualTo("hi");
		JsonNode receivedWith = RawHttp.json(with.get(with.size() - 1).at("/result/content/0/text").asText());
		assertThat(receivedWith.path("locale").asText()).isEqualTo("de");
	}

	@ParameterizedTest(name = "{0}, {1}: an injected header repeated with another value is refused, nothing forwarded")
	@org.junit.jupiter.params.provider.CsvSource({ "sdk-args, lines", "args-v, lines", "sdk-args, comma",
			"args-v, comma" })
	void anInjectedHeaderRepeatedWithAnotherValueIsRefusedAsConflicting(String server, String form) {
		McpSession session = session(server);
		String tool = server.equals("args-v") ? "sdk-args_whoami" : "whoami";
		upstream.clearSeen();
		java.net.http.HttpRequest.Builder request = session.request("{\"jsonrpc\":\"2.0\",\"id\":5,"
				+ "\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":{\"message\":\"hi\"}}}");
		// two lines, or one line holding both (RFC 9110 section 5.3: the same field)
		request = form.equals("lines") ? request.header("X-Tenant", "evil").header("X-Tenant", "good")
				: request.header("X-Tenant", "evil, good");

		java.net.http.HttpResponse<String> refused = http().send(request);

		assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
		JsonNode error = RawHttp.json(refused.body());
		assertThat(error.at("/error/code").asInt()).isEqualTo(-32600);
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("conflicting_header");
		assertThat(upstreamReceived("tools/call")).as("nothing forwarded").isEmpty();
	}

	@Test
	void anInjectedHeaderRepeatedWithTheSameValueSaysOneThingAndIsInjected() {
		McpSession session = session("sdk-args");

		List<JsonNode> answer = messages(http().send(session.request("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"whoami\",\"arguments\":{\"message\":\"hi\"}}}")
			.header("X-Tenant", "acme")
			.header("X-Tenant", "acme")));

		JsonNode received = RawHttp.json(answer.get(answer.size() - 1).at("/result/content/0/text").asText());
		assertThat(received.path("_tenant").asText()).isEqualTo("acme");
	}

	@Test
	void theRefusalLogEscapesTheToolNameAndTheKeysTheClientChose() {
		McpSession session = session("sdk-args");
		int logsFrom = CapturedLogs.all().size();

		session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"who\\nINFO forged\","
				+ "\"arguments\":{\"_k\\r\\nWARN forged\":1}}}");

		List<String> logged = CapturedLogs.since(logsFrom);
		assertThat(logged).as("the refusal is logged").anyMatch(line -> line.contains("Refused tools/call"));
		assertThat(logged).as("with the client's text escaped, so it cannot forge a line")
			.filteredOn(line -> line.contains("Refused tools/call"))
			.allSatisfy(line -> assertThat(line).doesNotContain("\n").doesNotContain("\r")
				.contains("who\\nINFO forged").contains("_k\\r\\nWARN forged"));
	}

	@Test
	void anInjectionOnlyReachesTheToolsItNames() {
		McpSession session = session("sdk-args");
		upstream.clearSeen();

		http().send(session.request(RawHttp.toolsCall(4, "echo")).header("X-Tenant", "acme"));

		JsonNode sent = upstreamReceived("tools/call").get(0);
		assertThat(sent.at("/params/arguments/_tenant").asText()).as("_tenant goes to every tool").isEqualTo("acme");
		assertThat(sent.at("/params/arguments/region").isMissingNode()).as("region only to who*").isTrue();
	}

	@Test
	void aStaticValueIsInjectedOnTheJsonPathToo() {
		McpSession session = session("sdk-json-args");

		JsonNode answer = messages(session.post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"whoami\",\"arguments\":{\"message\":\"hi\"}}}")).get(0);

		assertThat(RawHttp.json(answer.at("/result/content/0/text").asText()).path("_tenant").asText()).isEqualTo("acme");
	}

	@Test
	void withoutAReservedPrefixAClientsUnderscoreArgumentPasses() {
		McpSession session = session("sdk-json-open");

		JsonNode answer = messages(session.post("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"whoami\",\"arguments\":{\"message\":\"hi\",\"_tenant\":\"mine\"}}}")).get(0);
		JsonNode listed = tool(messages(session.post("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}")).get(0),
				"whoami");

		assertThat(RawHttp.json(answer.at("/result/content/0/text").asText()).path("_tenant").asText()).isEqualTo("mine");
		assertThat(listed.at("/inputSchema/properties/_tenant").isObject()).isTrue();
	}

	@Test
	void aReservedArgumentNoInjectionSuppliesIsWarnedAboutOncePerTool() {
		McpSession session = session("sdk-json-args");

		session.post("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\"}");
		session.post("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}");

		assertThat(CapturedLogs.all())
			.filteredOn(line -> line.startsWith("WARN") && line.contains("\"whoami\" of 'sdk-json-args'")
					&& line.contains("\"_trace\""))
			.as("_trace is never injected on sdk-json-args: one warning, however often the list is read")
			.hasSize(1);
		assertThat(CapturedLogs.all())
			.noneMatch(line -> line.contains("\"whoami\" of 'sdk-json-args'") && line.contains("\"_tenant\""));
	}

	private static JsonNode tool(JsonNode listAnswer, String name) {
		for (JsonNode tool : listAnswer.at("/result/tools")) {
			if (tool.path("name").asText().equals(name)) {
				return tool;
			}
		}
		throw new AssertionError("no tool " + name + " in " + listAnswer);
	}

}
