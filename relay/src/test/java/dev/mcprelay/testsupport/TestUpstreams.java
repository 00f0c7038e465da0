package dev.mcprelay.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** The upstreams shared by every integration test in the JVM, started once on first use. */
public final class TestUpstreams {

	public static final SdkMcpUpstream SDK = new SdkMcpUpstream();

	public static final ScriptedUpstream SCRIPTED = new ScriptedUpstream();

	/**
	 * A loopback port nothing listens on, for the JVM's life: connections to it are refused. It is held by a socket bound
	 * to it and never listening (a SYN to it is answered RST, and no other socket, of this JVM or another, can bind it):
	 * a port merely found free could be taken by any server started after it (the suite's other test JVM, a peer),
	 * whose answers then stood in for the refusal (ErrorStageTest answered 404 where it expected 502).
	 */
	public static final int REFUSED_PORT = refusingPort();

	/** Keeps {@link #REFUSED_PORT} bound. */
	private static java.net.Socket refusing;

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			SCRIPTED.close();
			try {
				SDK.close();
			}
			catch (Exception ignored) {
				// the JVM is going away
			}
		}));
	}

	private TestUpstreams() {
	}

	/** A loopback port free right now. */
	private static synchronized int refusingPort() {
		try {
			refusing = new java.net.Socket();
			refusing.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
			return refusing.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
