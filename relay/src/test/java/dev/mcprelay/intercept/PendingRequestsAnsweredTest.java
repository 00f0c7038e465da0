package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.RequestHeaders;

/**
 * Which ids of a POST were answered: the first answer's, and a batch's every other one, each told apart from the ids
 * still waiting and from ids the POST never sent (an answer under an id answered before is a second answer).
 */
class PendingRequestsAnsweredTest {

	private final CallContext context = new CallContext("s", RequestHeaders.empty());

	@Test
	void eachIdAnsweredIsRememberedTheFirstAsTheRest() {
		PendingRequests pending = new PendingRequests(context, null);
		pending.add(request(IntNode.valueOf(1)));
		pending.add(request(TextNode.valueOf("b")));
		pending.add(request(IntNode.valueOf(3)));
		assertThat(pending.wasAnswered(IntNode.valueOf(1))).isFalse();

		assertThat(pending.take(IntNode.valueOf(1))).isNotNull();
		assertThat(pending.wasAnswered(IntNode.valueOf(1))).isTrue();
		assertThat(pending.wasAnswered(LongNode.valueOf(1))).as("one id as the upstream reads it").isTrue();
		assertThat(pending.wasAnswered(TextNode.valueOf("1"))).isFalse();
		assertThat(pending.wasAnswered(TextNode.valueOf("b"))).isFalse();

		assertThat(pending.take(TextNode.valueOf("b"))).isNotNull();
		assertThat(pending.take(IntNode.valueOf(3))).isNotNull();
		assertThat(pending.wasAnswered(TextNode.valueOf("b"))).isTrue();
		assertThat(pending.wasAnswered(IntNode.valueOf(3))).isTrue();
		assertThat(pending.wasAnswered(IntNode.valueOf(1))).isTrue();
		assertThat(pending.wasAnswered(IntNode.valueOf(4))).isFalse();
		assertThat(pending.wasAnswered(null)).isFalse();
		assertThat(pending.take(IntNode.valueOf(1))).as("answered once").isNull();
		assertThat(pending.isEmpty()).isTrue();
	}

	@Test
	void nothingIsAnsweredBeforeTheFirstAnswer() {
		PendingRequests pending = new PendingRequests(context, null);
		pending.add(request(IntNode.valueOf(1)));
		assertThat(pending.take(IntNode.valueOf(2))).isNull();
		assertThat(pending.wasAnswered(IntNode.valueOf(2))).isFalse();
		assertThat(pending.wasAnswered(IntNode.valueOf(1))).isFalse();
	}

	private McpRequest request(JsonNode id) {
		ObjectNode message = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
		message.set("id", id);
		return new McpRequest(context, message.put("method", "tools/list"));
	}

}
