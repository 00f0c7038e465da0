package dev.mcprelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcJson;

/**
 * The read-only views of a message ({@link JsonView}, {@link ClientView#paramsView()},
 * {@link ToolsCallRequest#argumentsView()}) read the message's own tree, hold what the copying getters decode, and
 * cannot change the message at any depth: every mutator throws, and the message is as it was.
 */
class JsonViewTest {

	private static final String PARAMS = "{\"name\":\"t\",\"arguments\":{\"s\":\"x\",\"i\":7,\"l\":12345678901,"
			+ "\"big\":123456789012345678901234,\"f\":1.50,\"b\":true,\"n\":null,\"list\":[1,null,\"a\",{\"in\":[2.5]}],"
			+ "\"map\":{\"k\":{\"deep\":false},\"z\":null}},\"_meta\":{\"progressToken\":\"t-1\"}}";

	@Test
	void theArgumentsViewHoldsWhatTheCopyHolds() throws Exception {
		ToolsCallRequest call = call(PARAMS);
		Map<String, Object> view = call.argumentsView();

		assertThat(view).isEqualTo(call.arguments());
		assertThat(new ArrayList<>(view.keySet())).as("in the order sent")
			.containsExactly("s", "i", "l", "big", "f", "b", "n", "list", "map");
		assertThat(view.get("i")).isEqualTo(7);
		assertThat(view.get("l")).isEqualTo(12345678901L);
		assertThat(view.get("big")).isEqualTo(new BigInteger("123456789012345678901234"));
		assertThat(view.get("f")).as("its text kept").isEqualTo(new BigDecimal("1.50"));
		assertThat(view).containsKey("n").containsEntry("n", null);
		assertThat(view.get("absent")).isNull();
		assertThat(view.containsKey("absent")).isFalse();
		assertThat(call.paramsView().get("name")).isEqualTo("t");
		assertThat(call.paramsView().get("_meta")).isEqualTo(Map.of("progressToken", "t-1"));
	}

	@Test
	void aViewReadsTheMessageInPlace() throws Exception {
		ToolsCallRequest call = call(PARAMS);
		Map<String, Object> view = call.argumentsView();

		call.setArgument("s", "changed by a setter");

		assertThat(view.get("s")).as("no copy: the message as it is now").isEqualTo("changed by a setter");
	}

	@Test
	void nothingReadThroughAViewChangesTheMessage() throws Exception {
		ToolsCallRequest call = call(PARAMS);
		ObjectNode before = call.json();
		Map<String, Object> arguments = call.argumentsView();
		@SuppressWarnings("unchecked")
		Map<String, Object> nested = (Map<String, Object>) arguments.get("map");
		@SuppressWarnings("unchecked")
		List<Object> list = (List<Object>) arguments.get("list");
		@SuppressWarnings("unchecked")
		Map<String, Object> inList = (Map<String, Object>) list.get(3);

		List<Consumer<Object>> attempts = new ArrayList<>();
		for (Map<String, Object> map : List.of(arguments, nested, inList, call.paramsView())) {
			attempts.add(any -> map.put("s", "forged"));
			attempts.add(any -> map.put("new", "forged"));
			attempts.add(any -> map.remove("s"));
			attempts.add(any -> map.remove("absent"));
			attempts.add(any -> map.clear());
			attempts.add(any -> map.putAll(Map.of("k", "forged")));
			attempts.add(any -> map.replaceAll((key, value) -> "forged"));
			attempts.add(any -> map.entrySet().iterator().next().setValue("forged"));
			attempts.add(any -> {
				var entries = map.entrySet().iterator();
				entries.next();
				entries.remove();
			});
			attempts.add(any -> map.keySet().clear());
			attempts.add(any -> map.values().clear());
		}
		attempts.add(any -> list.set(0, "forged"));
		attempts.add(any -> list.add("forged"));
		attempts.add(any -> list.remove(0));
		attempts.add(any -> list.clear());
		attempts.add(any -> list.iterator().remove());

		for (int i = 0; i < attempts.size(); i++) {
			Consumer<Object> attempt = attempts.get(i);
			assertThatThrownBy(() -> attempt.accept(null)).as("attempt %d", i)
				.isInstanceOfAny(UnsupportedOperationException.class, IllegalStateException.class);
		}
		assertThat(call.json()).as("the message as it was").isEqualTo(before);
		assertThat(call.isChanged()).isFalse();
	}

	@Test
	void paramsTheCallDoesNotDecodeAreRefusedAsTheCopyRefusesThem() throws Exception {
		for (String params : List.of("{\"name\":\"t\",\"arguments\":\"x\"}", "{\"name\":\"t\",\"arguments\":[1]}",
				"{\"name\":\"t\",\"arguments\":{},\"_meta\":\"x\"}")) {
			ToolsCallRequest call = call(params);
			assertThatThrownBy(call::arguments).as(params).isInstanceOf(RejectError.class);
			assertThatThrownBy(call::argumentsView).as(params).isInstanceOf(RejectError.class);
		}
		for (String params : List.of("{\"name\":\"t\"}", "{\"name\":\"t\",\"arguments\":null}", "{}",
				"{\"name\":5,\"arguments\":{\"a\":1}}")) {
			ToolsCallRequest call = call(params);
			assertThat(call.argumentsView()).as(params).isEqualTo(call.arguments());
		}
	}

	private static ToolsCallRequest call(String params) throws Exception {
		ObjectNode message = (ObjectNode) JsonRpcJson.mapper()
			.readTree("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":" + params + "}");
		return new ToolsCallRequest(new CallContext("s", RequestHeaders.empty()), message);
	}

}
