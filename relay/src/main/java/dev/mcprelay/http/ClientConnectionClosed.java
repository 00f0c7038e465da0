package dev.mcprelay.http;

import org.springframework.web.util.DisconnectedClientHelper;

import reactor.netty.channel.AbortedException;

/**
 * The client's connection was closed or reset before or while the relay wrote its response: the client's leaving,
 * nobody's failure, and nothing to answer. A {@link RelayResponse} write fails with it (stackless) when its connection
 * is gone, so that the relay never takes it for the upstream's failure, whose exchange it is part of.
 */
public final class ClientConnectionClosed extends RuntimeException {

	ClientConnectionClosed(Throwable cause) {
		super("the client's connection closed before its response was written", cause, false, false);
	}

	/**
	 * Whether {@code error} says that the client left: this exception, or Reactor Netty's and Spring's own signs of a
	 * connection closed or reset by its client.
	 */
	public static boolean isClientGone(Throwable error) {
		return error instanceof ClientConnectionClosed || error instanceof AbortedException
				|| DisconnectedClientHelper.isClientDisconnectedException(error);
	}

}
