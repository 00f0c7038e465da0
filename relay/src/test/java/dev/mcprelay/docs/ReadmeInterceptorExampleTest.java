package dev.mcprelay.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.example.policy.TenantToolPolicy;
import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RepositoryRoot;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * The interceptor example of {@code docs/interceptors.md} compiles, is quoted verbatim, and does what the README says when it is simply
 * declared as a bean.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(TenantToolPolicy.class)
class ReadmeInterceptorExampleTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void upstream(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.tools.url", () -> TestUpstreams.SDK.url("/stateless"));
	}

	@BeforeEach
	void clear() {
		TestUpstreams.SDK.clearSeen();
	}

	@Test
	void theReadmeQuotesTheExampleVerbatim() throws Exception {
		String source = Files.readString(Path.of("src/test/java/com/example/policy/TenantToolPolicy.java"));

		assertThat(Files.readString(RepositoryRoot.resolve("docs/interceptors.md"))).contains("```java\n" + source + "```");
	}

	@Test
	void callsAreStampedWithTheCallersTenant() {
		RawHttp http = new RawHttp(port);

		http.send(http.post("tools", RawHttp.toolsCall(1, "echo")).header("X-Tenant", "blue"));

		List<JsonNode> calls = TestUpstreams.SDK.seen().stream().map(SdkMcpUpstream.Seen::json).toList();
		assertThat(calls).singleElement()
			.satisfies(call -> assertThat(call.at("/params/arguments/tenant").asText()).isEqualTo("blue"));
	}

	@Test
	void deletingToolsAreRefusedOutsideTheAdminTenant() {
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("tools", RawHttp.toolsCall(2, "delete_repo"))
			.header("X-Tenant", "blue"));

		JsonNode body = RawHttp.json(response.body());
		assertThat(body.at("/error/code").asInt()).isEqualTo(-32000);
		assertThat(body.at("/error/message").asText()).isEqualTo("Deleting is reserved to the admin tenant.");
		assertThat(TestUpstreams.SDK.seen()).isEmpty();
	}

}
