package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.mcprelay.api.ClientResponse;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.security.RelayMac;

/**
 * The id a server request gets on its way to the client carries the request: replicas that share
 * {@code sessions.secret} trust each other's; without it, or when a client altered it, the server's id is still
 * restored but the request is not trusted.
 */
class ServerRequestIdsTest {

	private static final ObjectNode REQUEST = (ObjectNode) read(
			"{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"elicitation/create\",\"params\":{\"message\":\"Your email?\"}}");

	@Test
	void replicasSharingTheSecretTrustEachOther() {
		TextNode id = ids("shared").wrap(REQUEST);

		ServerRequestIds.Origin origin = ids("shared").unwrap(id);

		assertThat(origin.trusted()).isTrue();
		assertThat(origin.id().asInt()).isEqualTo(42);
		assertThat(origin.method()).isEqualTo("elicitation/create");
		assertThat(origin.params().path("message").asText()).isEqualTo("Your email?");
	}

	@Test
	void anotherSecretOrAnAlteredIdIsRestoredButNotTrusted() {
		TextNode id = ids("shared").wrap(REQUEST);
		String token = id.textValue();
		String altered = token.substring(0, ServerRequestIds.PREFIX.length() + 3) + "A"
				+ token.substring(ServerRequestIds.PREFIX.length() + 4);

		assertThat(ids("other").unwrap(id).trusted()).isFalse();
		assertThat(ids("other").unwrap(id).id().asInt()).as("the server still gets its id").isEqualTo(42);
		assertThat(ids(null).unwrap(id).trusted()).isFalse();
		ServerRequestIds.Origin tampered = ids("shared").unwrap(TextNode.valueOf(altered));
		assertThat(tampered == null || !tampered.trusted()).isTrue();
	}

	@Test
	void idsTheRelayDidNotGiveAreLeftAlone() {
		assertThat(ids("s").unwrap(TextNode.valueOf("client-7"))).isNull();
		assertThat(ids("s").unwrap(JsonRpcParser.mapper().getNodeFactory().numberNode(7))).isNull();
		assertThat(ids("s").unwrap(TextNode.valueOf(ServerRequestIds.PREFIX + "!!!.x"))).isNull();
	}

	private static ServerRequestIds ids(String secret) {
		return new ServerRequestIds(new RelayMac(secret));
	}

	private static com.fasterxml.jackson.databind.JsonNode read(String json) {
		try {
			return JsonRpcParser.mapper().readTree(json);
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
