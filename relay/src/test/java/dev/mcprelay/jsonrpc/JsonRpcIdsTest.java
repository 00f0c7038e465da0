package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;

class JsonRpcIdsTest {

	/** Every kind of id an answer or a request may carry, with the pairs the keys make one. */
	private static final List<JsonNode> IDS = List.of(IntNode.valueOf(1), IntNode.valueOf(2), IntNode.valueOf(-1),
			LongNode.valueOf(1), LongNode.valueOf(9007199254740993L), LongNode.valueOf(9007199254740992L),
			BigIntegerNode.valueOf(BigInteger.valueOf(9007199254740993L)), DecimalNode.valueOf(new BigDecimal("1.0")),
			DecimalNode.valueOf(new BigDecimal("1.5")), TextNode.valueOf("1"), TextNode.valueOf("a"),
			TextNode.valueOf("n:1"), TextNode.valueOf(""), NullNode.getInstance());

	@Test
	void sameAgreesWithTheKeysForEveryPairOfIds() {
		for (JsonNode one : IDS) {
			for (JsonNode other : IDS) {
				assertThat(JsonRpcIds.same(one, other)).as("%s and %s", one, other)
					.isEqualTo(JsonRpcIds.key(one).equals(JsonRpcIds.key(other)));
				assertThat(JsonRpcIds.same(one, TextNode.valueOf(other.asText()))).as("%s and the text of %s", one, other)
					.isEqualTo(JsonRpcIds.key(one).equals(JsonRpcIds.key(TextNode.valueOf(other.asText()))));
			}
		}
	}

	@Test
	void anIntegerAndItsTextAreTwoIdsAndARoundedIntegerIsOne() {
		assertThat(JsonRpcIds.same(IntNode.valueOf(1), TextNode.valueOf("1"))).isFalse();
		assertThat(JsonRpcIds.same(TextNode.valueOf("a"), TextNode.valueOf("a"))).isTrue();
		assertThat(JsonRpcIds.same(IntNode.valueOf(7), IntNode.valueOf(7))).isTrue();
		assertThat(JsonRpcIds.same(LongNode.valueOf(9007199254740993L), LongNode.valueOf(9007199254740992L))).isTrue();
		assertThat(JsonRpcIds.same(IntNode.valueOf(1), null)).isFalse();
	}

}
