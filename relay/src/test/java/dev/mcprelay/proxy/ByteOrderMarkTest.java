package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import io.netty.buffer.Unpooled;
import reactor.core.publisher.Mono;

/**
 * A UTF-8 byte-order mark before an upstream's event stream is no part of its first event (the SSE specification has
 * readers ignore it, as the TypeScript SDK's client does): the first event meets the interceptors like any other, so a
 * tool in {@code tools.deny} ({@code scripted-tools} denies {@code secret_*}) never reaches the client through it.
 */
class ByteOrderMarkTest extends InterceptorIntegrationTest {

	private static final byte[] BYTE_ORDER_MARK = { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF };

	@Test
	void aDeniedToolInTheFirstEventAfterAByteOrderMarkIsFilteredOut() {
		byte[] event = ("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":["
				+ "{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}},"
				+ "{\"name\":\"secret_admin\",\"inputSchema\":{\"type\":\"object\"}}]}}\n\n")
			.getBytes(StandardCharsets.UTF_8);
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.send(Mono.just(Unpooled.wrappedBuffer(BYTE_ORDER_MARK, event))));

		HttpResponse<String> response = http().send(http().post("scripted-tools",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).as("the byte-order mark is not relayed into the client's stream")
			.doesNotContain("\uFEFF");
		JsonNode result = RawHttp.sseData(response.body()).get(0);
		assertThat(result.at("/result/tools").findValuesAsText("name")).as("the denied tool is filtered out")
			.containsExactly("echo");
	}

}
