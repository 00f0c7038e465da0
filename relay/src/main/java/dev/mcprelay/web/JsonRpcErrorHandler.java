package dev.mcprelay.web;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;

import dev.mcprelay.http.ClientConnectionClosed;
import dev.mcprelay.http.ClientRequestStalled;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.http.WebFluxResponse;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.proxy.RelayAnswers;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import reactor.core.publisher.Mono;

/**
 * Answers every request that no route answered, or whose handling failed before a response began, with a JSON-RPC
 * error body, on every path: an MCP client must never have to read Spring's error JSON. A path nothing serves gets
 * 404 {@code not_found}; a request the HTTP layer refused keeps its status (a 4xx, reason from the status); a request
 * whose client stopped sending it before it was whole ({@link ClientRequestStalled}) is the client's fault, 408
 * {@code request_read_timeout}, logged at DEBUG like the other refusals of the HTTP layer; anything else is a fault
 * of the relay: 500 {@code internal_error}, logged with its cause, with nothing of the cause in the
 * body. A client that closed or reset its connection is no fault at all: it is logged at DEBUG, recorded as
 * {@code client_disconnected}, and nothing is written. Runs before Spring Boot's own error handler. A response already under way cannot be replaced: the error
 * goes on, and the connection is closed.
 */
@Component
@Order(-2)
class JsonRpcErrorHandler implements WebExceptionHandler {

	private static final Logger log = LoggerFactory.getLogger(JsonRpcErrorHandler.class);

	@Override
	public Mono<Void> handle(ServerWebExchange exchange, Throwable error) {
		return answer(exchange.getRequest().getMethod(), exchange.getRequest().getPath().value(),
				ExchangeRecord.begin(exchange.getRequest().getMethod()), WebFluxResponse.of(exchange.getResponse()), error);
	}

	/**
	 * Answers {@code error}, which ended the handling of a {@code method} request for {@code path} before its response
	 * began, as this handler does, on whichever server carries the request; recorded in {@code record}.
	 */
	static Mono<Void> answer(HttpMethod method, String path, ExchangeRecord record, RelayResponse response,
			Throwable error) {
		if (ClientConnectionClosed.isClientGone(error)) {
			log.debug("{} {}: the client went away ({})", method, path, error.toString());
			record.clientLeft();
			return Mono.empty();
		}
		if (response.committed()) {
			return Mono.error(error);
		}
		RelayFailure failure = failureFor(error, method, path);
		record.failed(failure.outcome(), failure.reason());
		return RelayAnswers.respond(response, failure, null);
	}

	private static RelayFailure failureFor(Throwable error, HttpMethod method, String path) {
		if (error instanceof RelayFailure failure) {
			return failure;
		}
		if (ClientRequestStalled.is(error)) {
			log.debug("{} {}: the client stopped sending its request before it was whole", method, path);
			return RelayFailures.requestReadTimeout();
		}
		if (error instanceof ResponseStatusException statusError) {
			HttpStatus status = HttpStatus.resolve(statusError.getStatusCode().value());
			if (status == HttpStatus.NOT_FOUND) {
				return RelayFailures.notFound();
			}
			if (status != null && status.is4xxClientError()) {
				log.debug("{} {} refused: {}", method, path, statusError.getReason());
				return RelayFailures.httpError(status);
			}
		}
		log.error("{} {} failed inside the relay", method, path, error);
		return RelayFailures.internalError();
	}

}
