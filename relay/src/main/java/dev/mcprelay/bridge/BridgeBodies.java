package dev.mcprelay.bridge;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;

import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reads a JSON answer of the server whole, for the bridge to look into or turn into the client's version: at most the
 * server's {@code max-buffered-body}, every buffer released once copied (and on failure or cancellation). A larger
 * answer fails the exchange as one the relay cannot carry (502, {@code upstream_response_too_large}).
 */
final class BridgeBodies {

	private BridgeBodies() {
	}

	static Mono<byte[]> read(Flux<DataBuffer> body, long maxBytes, String serverId) {
		int limit = (int) Math.min(maxBytes, Integer.MAX_VALUE - 8);
		return DataBufferUtils.join(body, limit).map(joined -> {
			try {
				byte[] bytes = new byte[joined.readableByteCount()];
				joined.read(bytes);
				return bytes;
			}
			finally {
				DataBufferUtils.release(joined);
			}
		})
			.defaultIfEmpty(new byte[0])
			.onErrorMap(DataBufferLimitException.class, tooLarge -> new UpstreamTransportException(
					Kind.UPSTREAM_FAILED, "upstream_response_too_large", "MCP server '" + serverId
							+ "' answered with more than its max-buffered-body (" + limit + " bytes)."));
	}

}
