package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcJson;

/**
 * A call's arguments as the policies read them, made from the call's tree ({@link CallArguments}), are the values the
 * typed decoding gave, converted ({@code CelValues.of(call.arguments())}): every kind of number, nested values, JSON
 * nulls; params the typed decoding refuses are refused as before; a number beyond int64 throws when read.
 */
class CallArgumentsTest {

	@Test
	void theTreesArgumentsAreTheDecodedOnes() throws Exception {
		for (String params : List.of("{\"name\":\"t\"}", "{\"name\":\"t\",\"arguments\":null}",
				"{\"name\":\"t\",\"arguments\":{}}",
				"{\"name\":\"t\",\"arguments\":{\"s\":\"x\",\"i\":7,\"l\":12345678901,\"big\":1234567890123456789,"
						+ "\"f\":1.50,\"e\":1e2,\"neg\":-0.0,\"b\":true,\"n\":null,\"list\":[1,null,\"a\",[2.5]],"
						+ "\"map\":{\"k\":{\"deep\":false},\"z\":null}},\"_meta\":{\"progressToken\":\"t-1\"},"
						+ "\"other\":[1]}",
				"{\"name\":\"t\",\"arguments\":{\"m\":\"x\"},\"_meta\":null}")) {
			ToolsCallRequest call = call(params);
			assertThat(CallArguments.of(call)).as(params).isEqualTo(CelValues.of(call.arguments()));
		}
	}

	/** Review 43f F-B: a number no CEL value holds throws when read, from the tree as from the decoded arguments. */
	@Test
	@SuppressWarnings("unchecked")
	void aNumberBeyondInt64ThrowsWhenReadAndOnlyThen() throws Exception {
		ToolsCallRequest call = call("{\"name\":\"t\",\"arguments\":{\"big\":123456789012345678901234,\"s\":\"x\"}}");
		for (Map<String, Object> arguments : List.of(CallArguments.of(call),
				(Map<String, Object>) CelValues.of(call.arguments()))) {
			assertThat(arguments.get("s")).isEqualTo("x");
			assertThat(arguments.keySet()).containsExactlyInAnyOrder("big", "s");
			assertThat(arguments.containsKey("big")).isTrue();
			assertThatThrownBy(() -> arguments.get("big")).isInstanceOf(CelValues.OutOfRange.class);
		}
	}

	/**
	 * Review 43f F-E: a JSON {@code null} in a list is CEL's {@code null} in its place; left out, it shifted the
	 * elements after it, and a rule on {@code targets[0]} read another element than the server gets.
	 */
	@Test
	void aNullInAListKeepsItsPlace() throws Exception {
		ToolsCallRequest call = call("{\"name\":\"t\",\"arguments\":{\"targets\":[null,\"safe\"]}}");
		assertThat(CallArguments.of(call).get("targets"))
			.isEqualTo(List.of(dev.cel.common.values.NullValue.NULL_VALUE, "safe"));
		PolicyFacts facts = new PolicyFacts(dev.mcprelay.api.Caller.ANONYMOUS, "s", null, "tools/call", false, "t",
				Map.of(), null, null, null, RequestHeaders.empty())
			.withArguments(call);
		assertThat(PolicyEnvironment.compile("mcp.arguments.?targets.orValue([\"safe\"])[0] != \"safe\"")
			.evaluate(facts.variables(), true)).as("element 0 is null, not \"safe\"").isEqualTo(RuleVerdict.TRUE);
		assertThat(PolicyEnvironment.compile("mcp.arguments.targets[0] == null && size(mcp.arguments.targets) == 2")
			.evaluate(facts.variables(), true)).isEqualTo(RuleVerdict.TRUE);
	}

	@Test
	void paramsTheCallDoesNotDecodeAreRefusedAsBefore() throws Exception {
		for (String params : List.of("{\"name\":\"t\",\"arguments\":\"x\"}", "{\"name\":\"t\",\"arguments\":[1]}",
				"{\"name\":\"t\",\"arguments\":{},\"_meta\":\"x\"}")) {
			ToolsCallRequest call = call(params);
			assertThatThrownBy(call::arguments).as(params).isInstanceOf(RejectError.class);
			assertThatThrownBy(() -> CallArguments.of(call)).as(params).isInstanceOf(RejectError.class);
		}
	}

	@Test
	void theArgumentsAreReadInPlaceAndNothingReadThroughThemChangesTheCall() throws Exception {
		ToolsCallRequest call = call("{\"name\":\"t\",\"arguments\":{\"s\":\"x\",\"n\":null,"
				+ "\"map\":{\"k\":1,\"z\":null},\"list\":[{\"in\":2}]}}");
		ObjectNode before = call.json();
		Map<String, Object> arguments = CallArguments.of(call);
		@SuppressWarnings("unchecked")
		Map<String, Object> nested = (Map<String, Object>) arguments.get("map");

		assertThat(arguments).as("a JSON null is left out").doesNotContainKey("n").hasSize(3);
		assertThat(nested).isEqualTo(Map.of("k", 1L));
		for (Map<String, Object> map : List.of(arguments, nested)) {
			assertThatThrownBy(() -> map.put("s", "forged")).isInstanceOf(UnsupportedOperationException.class);
			assertThatThrownBy(() -> map.remove("k")).isInstanceOf(UnsupportedOperationException.class);
			assertThatThrownBy(map::clear).isInstanceOf(UnsupportedOperationException.class);
			assertThatThrownBy(() -> map.entrySet().iterator().next().setValue("forged"))
				.isInstanceOf(UnsupportedOperationException.class);
		}
		assertThat(call.json()).as("the call as it was").isEqualTo(before);
		assertThat(call.isChanged()).isFalse();

		call.setArgument("s", "set after");
		assertThat(arguments.get("s")).as("read in place, not copied").isEqualTo("set after");
	}

	private static ToolsCallRequest call(String params) throws Exception {
		ObjectNode message = (ObjectNode) JsonRpcJson.mapper()
			.readTree("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":" + params + "}");
		return new ToolsCallRequest(new CallContext("s", RequestHeaders.empty()), message);
	}

}
