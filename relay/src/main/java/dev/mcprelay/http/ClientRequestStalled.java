package dev.mcprelay.http;

import io.netty.handler.timeout.ReadTimeoutException;

/**
 * The client stopped sending a request it had begun (its headers, or part of its body, came; then nothing for
 * {@code mcp-relay.client-connections.request-read-timeout}) before the relay answered it: {@link RequestReadTimeout}
 * on the client connection fails the request's body with Netty's {@link ReadTimeoutException}. It is the client's fault, not the relay's: the
 * request is answered 408 {@code request_read_timeout} and the connection closed. No other read timeout reaches the
 * handling of a client's request: the relay's upstream exchanges classify their own failures before they reach it.
 */
public final class ClientRequestStalled {

	private ClientRequestStalled() {
	}

	/** Whether {@code error} says that the client's request stopped arriving before it was whole. */
	public static boolean is(Throwable error) {
		return error instanceof ReadTimeoutException;
	}

}
