package dev.mcprelay.proxy;

import dev.mcprelay.http.RelayResponse;
import reactor.core.publisher.Mono;

/**
 * How a whole answer's body (its status and headers set, {@code Content-Length} among them) is written to the client.
 * {@link OpenStreams#clientTimed} gives the one writer every answer the relay holds whole should go through: handed on
 * no faster than the client takes it ({@link ClientWriteWindow#whole}) and cut at {@code timeouts.client-write}
 * (outcome {@code client_write_timeout}, counted) when the client takes nothing; {@link #UNTIMED} writes at once, for
 * an answer that is small by construction (a refusal).
 */
@FunctionalInterface
public interface WholeAnswerWriter {

	/** Writes the body at once, as one buffer, with no clock. */
	WholeAnswerWriter UNTIMED = (response, body) -> response.write(Mono.just(response.bufferFactory().wrap(body)));

	/** Writes {@code body} as {@code response}'s whole body; completes once it was written (or the write ended). */
	Mono<Void> write(RelayResponse response, byte[] body);

}
