package dev.mcprelay.config;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Configuration;

import dev.mcprelay.http.ClientConnectionClosed;
import dev.mcprelay.http.ClientRequestStalled;
import reactor.core.publisher.Hooks;

/**
 * How an error that arrives after its exchange has ended (Reactor's "dropped" errors) is logged. By default Reactor
 * logs each at ERROR with a stack trace, and a client that resets its connection mid-stream produces some: WebClient
 * then tries to release an upstream body the cancelled relay already read ("Rejecting additional inbound receiver"),
 * or a write fails on the closed connection; a client that stops sending its request mid-body has its read timeout
 * dropped once the request is answered. Any client could flood the log that way, so these are logged at DEBUG;
 * any other dropped error, which may be a fault of the relay, at WARN with its stack trace. Installed once per JVM,
 * since Reactor's hook is global.
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
		else {
			log.warn("An error arrived after its exchange ended", error);
		}
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
