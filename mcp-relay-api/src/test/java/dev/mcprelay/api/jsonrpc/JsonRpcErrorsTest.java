package dev.mcprelay.api.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An error's {@code data} is written in one order whatever the order of the map it is given: {@code reason} first,
 * then the other fields by name, so that replicas behind one load balancer answer one error the same way (a
 * {@code Map.of}'s order changes from one JVM to the next).
 */
class JsonRpcErrorsTest {

	@Test
	void dataIsWrittenReasonFirstThenByNameWhateverTheMapsOrder() {
		Map<String, String> backwards = new LinkedHashMap<>();
		backwards.put("server", "hub");
		backwards.put("candidates", "a,b");
		backwards.put("reason", "ambiguous_resource");
		backwards.put("member", "a");

		ObjectNode error = JsonRpcErrors.error(null, JsonRpcErrorCodes.INVALID_REQUEST, "refused", backwards);

		List<String> names = new ArrayList<>();
		error.get("error").get("data").fieldNames().forEachRemaining(names::add);
		assertThat(names).containsExactly("reason", "candidates", "member", "server");
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("ambiguous_resource");
	}

	@Test
	void dataWithoutAReasonIsWrittenByName() {
		Map<String, String> backwards = new LinkedHashMap<>();
		backwards.put("uri", "res://x");
		backwards.put("candidates", "a");

		List<String> names = new ArrayList<>();
		JsonRpcErrors.error(null, JsonRpcErrorCodes.INVALID_REQUEST, "refused", backwards)
			.at("/error/data")
			.fieldNames()
			.forEachRemaining(names::add);
		assertThat(names).containsExactly("candidates", "uri");
	}

}
