package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Mono;

/**
 * A member's answer that its relay handed on without the list-response stage (an HTTP 4xx or 5xx, relayed as it came)
 * or that is no UTF-8 JSON text is a failure of that member, never a result the virtual server merges (the member is left out of the list,
 * with a warning naming it, as a member that is down): a tool the
 * member's {@code tools.deny} hides is never listed through the virtual server, whatever status or encoding its
 * upstream answered {@code tools/list} with. The upstream is scripted: no real server answers a result with a 500.
 */
class MemberFailedAnswerTest {

	private static final ScriptedUpstream UPSTREAM = new ScriptedUpstream();

	/** How the upstream answers tools/list: an HTTP status and a charset. */
	private static final AtomicReference<String[]> LIST = new AtomicReference<>(new String[] { "200", "UTF-8" });

	/** How the upstream answers tools/call, with a secret result: an HTTP status and a Content-Type. */
	private static final AtomicReference<String[]> CALL = new AtomicReference<>(
			new String[] { "200", "application/json" });

	private static ConfigurableApplicationContext relay;

	private static RawHttp http;

	@BeforeAll
	static void start() {
		UPSTREAM.scriptWithBody((request, response, body) -> {
			if (body.contains("\"initialize\"")) {
				return ScriptedUpstream.initializeAnswer(response, body, "d", "member-session");
			}
			if (body.contains("\"tools/list\"")) {
				String[] mode = LIST.get();
				String list = body.replaceFirst("(?s)\"method\".*", "\"result\":{\"tools\":["
						+ "{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}},"
						+ "{\"name\":\"secret_admin\",\"inputSchema\":{\"type\":\"object\"}}]}}");
				return response.status(Integer.parseInt(mode[0]))
					.header("Content-Type", "application/json")
					.sendByteArray(Mono.just(list.getBytes(java.nio.charset.Charset.forName(mode[1]))));
			}
			if (body.contains("\"tools/call\"")) {
				String[] mode = CALL.get();
				return response.status(Integer.parseInt(mode[0]))
					.header("Content-Type", mode[1])
					.sendString(Mono.just(body.replaceFirst("(?s)\"method\".*",
							"\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"the secret\"}]}}")));
			}
			if ("GET".equals(request.method().name())) {
				return response.status(405).send();
			}
			return response.status(202).send();
		});
		relay = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.d.url=" + UPSTREAM.url("/mcp"),
					"mcp-relay.servers.d.tools.deny[0]=secret_*", "mcp-relay.virtual-servers.v.members=d")
			.run();
		http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
	}

	@AfterAll
	static void stop() {
		relay.close();
		UPSTREAM.close();
	}

	@ParameterizedTest
	@CsvSource({ "500, UTF-8", "403, UTF-8", "400, UTF-16", "200, UTF-16BE" })
	void aMembersListAnsweredWithoutItsListStageIsAMemberFailureNeverAMergedResult(int status, String charset) {
		McpSession session = McpSession.open(http, "v");
		LIST.set(new String[] { String.valueOf(status), charset });
		try {
			HttpResponse<String> answer = session.post("{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"tools/list\"}");

			assertThat(answer.body()).doesNotContain("secret_admin");
			List<JsonNode> messages = RawHttp.messagesOf(answer);
			assertThat(messages).as(answer.body())
				.anySatisfy(warning -> assertThat(warning.at("/params/data").asText())
					.startsWith("Member 'd' is unavailable: it "))
				.anySatisfy(response -> {
					assertThat(response.path("id").asText()).isEqualTo("l");
					assertThat(response.at("/result/tools")).isEmpty();
				});
		}
		finally {
			LIST.set(new String[] { "200", "UTF-8" });
		}
	}

	@Test
	void aMembersListAnsweredWithItsListStageIsMergedWithoutTheDeniedTool() {
		McpSession session = McpSession.open(http, "v");

		HttpResponse<String> answer = session.post("{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"tools/list\"}");

		assertThat(answer.statusCode()).isEqualTo(200);
		assertThat(answer.body()).contains("d_echo").doesNotContain("secret_admin");
	}

	/**
	 * Cold review I: a member's answer to a call that its relay cannot read (a 2xx that is neither JSON nor an event
	 * stream, a 5xx of a JSON type other than {@code application/json}) is never relayed through the virtual server:
	 * the member's relay answers the call with its own error, which the virtual server relays.
	 */
	@ParameterizedTest
	@CsvSource({ "200, application/json-rpc, upstream_invalid_response", "500, application/json-rpc, upstream_error_status",
			"200, application/jsonx, upstream_invalid_response" })
	void aMembersCallAnswerItsRelayCannotReadNeverReachesTheClient(String status, String type, String reason) {
		McpSession session = McpSession.open(http, "v");
		CALL.set(new String[] { status, type });
		try {
			HttpResponse<String> answer = session.post(RawHttp.toolsCall("c", "d_echo"));

			assertThat(answer.body()).doesNotContain("the secret");
			List<JsonNode> messages = RawHttp.messagesOf(answer);
			assertThat(messages).as(answer.body())
				.anySatisfy(error -> {
					assertThat(error.path("id").asText()).isEqualTo("c");
					assertThat(error.at("/error/data/reason").asText()).isEqualTo(reason);
				});
		}
		finally {
			CALL.set(new String[] { "200", "application/json" });
		}
	}

}
