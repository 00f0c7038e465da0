package dev.mcprelay.proxy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;

import org.springframework.core.io.buffer.DataBufferLimitException;

import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.upstream.UpstreamAuthException;
import io.netty.channel.ConnectTimeoutException;
import reactor.netty.http.client.PrematureCloseException;

/** Classifies whatever went wrong talking to an upstream into the {@link RelayFailure} the client is told. */
final class UpstreamFailures {

	private UpstreamFailures() {
	}

	/** The failure for an error raised before the relay started answering the client. */
	static RelayFailure classify(Throwable error, Upstream upstream) {
		if (error instanceof RelayFailure failure) {
			return failure;
		}
		if (error instanceof RelayShuttingDownException cut) {
			return cut.failure(upstream.id());
		}
		if (error instanceof TimeoutException) {
			return RelayFailures.upstreamTimeout(upstream.id(), upstream.nonStreamingTimeout());
		}
		if (error instanceof DataBufferLimitException) {
			return RelayFailures.upstreamResponseTooLarge(upstream.id(), upstream.maxBufferedBody());
		}
		if (error instanceof UpstreamTransportException transportFailure) {
			return RelayFailures.transportFailure(upstream.id(), transportFailure);
		}
		if (error instanceof UpstreamAuthException authFailure) {
			return RelayFailures.upstreamAuth(upstream.id(), authFailure);
		}
		Throwable cause = error;
		if (cause instanceof ConnectTimeoutException) {
			return RelayFailures.upstreamUnreachable(upstream.id(), "the connection attempt timed out");
		}
		if (cause instanceof ConnectException) {
			return RelayFailures.upstreamUnreachable(upstream.id(), "the connection was refused");
		}
		if (cause instanceof UnknownHostException) {
			return RelayFailures.upstreamUnreachable(upstream.id(), "its host name does not resolve");
		}
		if (cause instanceof PrematureCloseException || cause instanceof ClosedChannelException) {
			return RelayFailures.upstreamUnreachable(upstream.id(), "it closed the connection before answering");
		}
		if (cause instanceof IOException) {
			return RelayFailures.upstreamUnreachable(upstream.id(), "the request could not be sent");
		}
		return RelayFailures.upstreamFailed(upstream.id());
	}

	/** A log-safe description of the cause: class and message of the root cause, never a URL with its query. */
	static String describe(Throwable error) {
		Throwable root = error;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		if (root instanceof RelayFailure) {
			return root.getMessage();
		}
		String message = root.getMessage();
		return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
	}

}
