package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;

/**
 * A client's request routed to a member is handed to the member's relay as the virtual server parsed it, once: a
 * message sent again (the member lost its session) is parsed from its bytes, since the first exchange's interceptors
 * change the tree in place; its {@code Mcp-*} headers mirror it as the virtual server made it.
 */
class MemberMessageTest {

	private static final String CALL = "{ \"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/call\", "
			+ "\"params\": {\"name\": \"alpha_echo\", \"arguments\": {}} }";

	@Test
	void theClientsRequestUnchangedGoesAsItsOwnBytesAndItsTreeOnce() throws Exception {
		JsonRpcPayload received = JsonRpcParser.parseClientBody(CALL.getBytes(StandardCharsets.UTF_8));

		MemberMessage message = MemberMessage.routed(received, received.first().node());

		assertThat(message.bytes()).as("the client's own bytes, as a direct relay forwards them")
			.isSameAs(received.raw());
		assertThat(message.takeParsed()).as("the tree the virtual server parsed").isSameAs(received);
		assertThat(message.takeParsed()).as("to the first member exchange only").isNull();
	}

	@Test
	void aRenamedRequestGoesAsTheCopysBytesAndTree() throws Exception {
		JsonRpcPayload received = JsonRpcParser.parseClientBody(CALL.getBytes(StandardCharsets.UTF_8));
		ObjectNode renamed = received.first().node().deepCopy();
		((ObjectNode) renamed.get("params")).put("name", "echo");

		MemberMessage message = MemberMessage.routed(received, renamed);

		assertThat(JsonRpcParser.mapper().readTree(message.bytes())).isEqualTo(renamed);
		JsonRpcPayload parsed = message.takeParsed();
		assertThat(parsed.raw()).isSameAs(message.bytes());
		assertThat(parsed.first().node()).isSameAs(renamed);
		assertThat(parsed.first().kind()).isEqualTo(received.first().kind());
		assertThat(message.name()).as("Mcp-Name mirrors the name the member gets").isEqualTo("echo");
	}

	@Test
	void theHeadersMirrorTheMessageAsMadeNotAsAnExchangeChangedIt() throws Exception {
		JsonRpcPayload received = JsonRpcParser.parseClientBody(CALL.getBytes(StandardCharsets.UTF_8));
		MemberMessage message = MemberMessage.routed(received, received.first().node());

		((ObjectNode) message.takeParsed().first().node().get("params")).put("name", "changed by an interceptor");

		assertThat(message.method()).isEqualTo("tools/call");
		assertThat(message.name()).isEqualTo("alpha_echo");
	}

	@Test
	void aMessageOfBytesHasNoTreeAndMirrorsWhatItsBytesSay() {
		MemberMessage message = MemberMessage.of(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\","
				+ "\"params\":{\"uri\":\"memo://one\"}}").getBytes(StandardCharsets.UTF_8));

		assertThat(message.takeParsed()).isNull();
		assertThat(message.method()).isEqualTo("resources/read");
		assertThat(message.name()).as("params.uri where there is no name").isEqualTo("memo://one");
		assertThat(MemberMessage.of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}".getBytes(StandardCharsets.UTF_8))
			.method()).as("an answer has no method to mirror").isNull();
	}

}
