package dev.mcprelay.bridge;

import java.util.function.Function;

import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * A server a bridge test scripts by its answers to POSTs alone ({@link #send}): a GET ({@link #receive}) or a DELETE
 * ({@link #close}) fails the exchange that sends it, so that a test whose bridge would send one sees it fail.
 */
interface PostOnlyUpstream extends UpstreamTransport {

	@Override
	default Mono<Void> receive(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return Mono.error(new UnsupportedOperationException("GET " + request.uri() + " is not scripted"));
	}

	@Override
	default Mono<Void> close(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return Mono.error(new UnsupportedOperationException("DELETE " + request.uri() + " is not scripted"));
	}

}
