package dev.mcprelay.config;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.RedisConnectionFailureException;

import dev.mcprelay.http.ClientConnectionClosed;
import dev.mcprelay.http.ClientRequestStalled;
import io.lettuce.core.RedisException;
import reactor.core.publisher.Hooks;

/**
 * How an error that arrives after its exchange has ended (Reactor's "dropped" errors) is logged. By default Reactor
 * logs each at ERROR with a stack trace, and a client that resets its connection mid-stream produces some: WebClient
 * then tries to release an upstream body the cancelled relay already read ("Rejecting additional inbound receiver"),
 * or a write fails on the closed connection; a client that stops sending its request mid-body has its read timeout
 * dropped once the request is answered. Any client could flood the log that way, so these are logged at DEBUG.
 * So is a failure of the shared store (Redis) that comes after the bound of its call ended the call: a readiness
 * check or a session lookup waits at most its bound for a call that blocks while Lettuce connects, and the connection
 * attempt fails later (a Redis that hangs at start-up, after Lettuce's connect timeout); the call's bound already
 * reported the store unavailable, by name and with what to check. Any other dropped error, which may be a fault of
 * the relay, is logged at WARN with its stack trace. Installed once per JVM, since Reactor's hook is global.
 */
@Configuration(proxyBeanMethods = false)
class DroppedErrorLogging {

	private static final Logger log = LoggerFactory.getLogger(DroppedErrorLogging.class);

	static {
		Hooks.onErrorDropped(DroppedErrorLogging::dropped);
	}

	private static void dropped(Throwable error) {
		if (afterTheClientLeft(error)) {
			log.debug("An error arrived after its exchange ended (the client had left, or stopped sending): {}", error.toString());
		}
		else if (storeFailure(error)) {
			log.debug("The shared store failed after its call's bound had ended the call (reported then): {}",
					error.toString());
		}
		else {
			log.warn("An error arrived after its exchange ended", error);
		}
	}

	/** A failure of Redis or of the connection to it (Spring Data Redis's or Lettuce's), anywhere in the causes. */
	static boolean storeFailure(Throwable error) {
		for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
			if (cause instanceof RedisConnectionFailureException || cause instanceof RedisException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Errors that only say the exchange was already over because the client closed or reset its connection, or
	 * stopped sending its request (answered 408 already).
	 */
	static boolean afterTheClientLeft(Throwable error) {
		if (ClientConnectionClosed.isClientGone(error) || ClientRequestStalled.is(error)) {
			return true;
		}
		return error instanceof IllegalStateException && error.getMessage() != null
				&& error.getMessage().startsWith("Rejecting additional inbound receiver");
	}

}
