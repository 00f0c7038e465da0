package dev.mcprelay.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcJson;

/**
 * The view of an MCP 2026-07-28 {@code subscriptions/listen}: the resources it subscribes to, in the client's order,
 * and leaving some out changes the request (so that it is re-encoded) and nothing else of it.
 */
class SubscriptionsListenRequestTest {

	private static final CallContext CONTEXT = new CallContext("files", RequestHeaders.of(Map.of()), Caller.ANONYMOUS);

	@Test
	void resourcesLeftOutAreGoneAndTheRestKeepsItsOrder() throws Exception {
		SubscriptionsListenRequest listen = new SubscriptionsListenRequest(CONTEXT, listen());
		assertThat(listen.resourceSubscriptions()).containsExactly("res://a", "res://secret", "res://b");

		listen.removeResourceSubscriptionsWhere(uri -> uri.contains("secret"));

		assertThat(listen.isChanged()).isTrue();
		assertThat(listen.resourceSubscriptions()).containsExactly("res://a", "res://b");
		assertThat(listen.json().at("/params/notifications/toolsListChanged").asBoolean()).as("the rest as it was")
			.isTrue();
		assertThat(listen.json().at("/params/_meta/k").asText()).isEqualTo("v");
	}

	@Test
	void leavingNothingOutChangesNothing() throws Exception {
		SubscriptionsListenRequest listen = new SubscriptionsListenRequest(CONTEXT, listen());
		listen.removeResourceSubscriptionsWhere(uri -> false);
		assertThat(listen.isChanged()).isFalse();
		SubscriptionsListenRequest none = new SubscriptionsListenRequest(CONTEXT, (ObjectNode) JsonRpcJson.mapper()
			.readTree("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":{}}"));
		none.removeResourceSubscriptionsWhere(uri -> true);
		assertThat(none.isChanged()).isFalse();
		assertThat(none.resourceSubscriptions()).isEmpty();
	}

	private static ObjectNode listen() throws Exception {
		return (ObjectNode) JsonRpcJson.mapper().readTree("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"subscriptions/listen\","
				+ "\"params\":{\"notifications\":{\"resourceSubscriptions\":[\"res://a\",\"res://secret\",\"res://b\"],"
				+ "\"toolsListChanged\":true},\"_meta\":{\"k\":\"v\"}}}");
	}

}
