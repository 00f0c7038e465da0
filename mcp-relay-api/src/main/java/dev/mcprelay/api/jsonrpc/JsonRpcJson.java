package dev.mcprelay.api.jsonrpc;

import java.io.IOException;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The one Jackson mapper for JSON-RPC messages, the relay's and the typed views' alike: numbers keep their precision
 * (a {@code 1.50} stays {@code 1.50}), a duplicate key or trailing content is an error. Thread-safe; do not
 * reconfigure it.
 */
public final class JsonRpcJson {

	private static final ObjectMapper MAPPER = JsonMapper.builder()
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
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

}
