package dev.mcprelay.api.jsonrpc;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.NullNode;

/**
 * The one Jackson mapper for JSON-RPC messages, the relay's and the typed views' alike: numbers keep their precision
 * (a {@code 1.50} stays {@code 1.50}), a duplicate key or trailing content is an error, a string may be as long as
 * the body that holds it (the relay bounds bodies by {@code max-buffered-body}; Jackson's own bound of 20 million
 * characters made a valid body of one long string "not JSON"), the member names of a body are not kept past its tree
 * but for a few small ones ({@link BoundedNamesJsonFactory}), and a value whose type names its kind is written with
 * it wherever it sits ({@code KindNamingSerializers}). Thread-safe; do not reconfigure it.
 */
public final class JsonRpcJson {

	private static final ObjectMapper MAPPER = JsonMapper.builder(new BoundedNamesJsonFactory(new JsonFactoryBuilder()
			.streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())))
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
		.addModule(KindNamingSerializers.module())
		.build();

	static {
		// Jackson makes its tree deserializer on first use, under a lock: made here, at start-up, no event loop ever
		// waits on another for it (the first requests of a virtual server arrive in parallel).
		try {
			MAPPER.readTree("{\"warm\":[1,1.5,\"up\",true,null]}");
			MAPPER.writeValueAsBytes(MAPPER.createObjectNode().put("warm", 1));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private JsonRpcJson() {
	}

	/** The mapper: read and write JSON-RPC messages and convert values to and from their JSON. */
	public static ObjectMapper mapper() {
		return MAPPER;
	}

	/**
	 * {@code value} as JSON, as the mapper writes it: an MCP schema type whose JSON names its kind (a content block's
	 * {@code "type": "text"}) keeps it wherever it sits, in a list, a map, an array or an author's record whose
	 * component is typed {@code Object} ({@code KindNamingSerializers}), so that what an author's setter writes is valid
	 * MCP, which the SDK's client reads.
	 *
	 * @return the JSON; a {@code NullNode} for {@code null}
	 */
	public static JsonNode toTree(Object value) {
		JsonNode node = MAPPER.valueToTree(value);
		return node == null ? NullNode.getInstance() : node;
	}

}
