package dev.mcprelay.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** The upstreams shared by every integration test in the JVM, started once on first use. */
public final class TestUpstreams {

	public static final SdkMcpUpstream SDK = new SdkMcpUpstream();

	public static final ScriptedUpstream SCRIPTED = new ScriptedUpstream();

	/** A loopback port nothing listens on: connections to it are refused. */
	public static final int REFUSED_PORT = freePort();

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
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
