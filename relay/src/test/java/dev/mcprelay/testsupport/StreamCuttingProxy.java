package dev.mcprelay.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy on 127.0.0.1 in front of a port, that drops the first GET stream once it has carried a given number of
 * events, as a flaky network does, and records the head of every GET that passes: for tests of a client's resumption
 * after a dropped stream ({@code Last-Event-ID}).
 */
public final class StreamCuttingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int target;

	private final int eventsBeforeCut;

	private final AtomicBoolean cut = new AtomicBoolean();

	private final List<String> getHeads = new CopyOnWriteArrayList<>();

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	public StreamCuttingProxy(int target, int eventsBeforeCut) {
		this.target = target;
		this.eventsBeforeCut = eventsBeforeCut;
		try {
			this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::accept, "stream-cutting-proxy");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	public int port() {
		return server.getLocalPort();
	}

	/** Whether a GET stream was dropped. */
	public boolean cut() {
		return cut.get();
	}

	/** The head of every GET request that passed, in order. */
	public List<String> getHeads() {
		return List.copyOf(getHeads);
	}

	private void accept() {
		while (!server.isClosed()) {
			try {
				Socket client = server.accept();
				Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
				sockets.add(client);
				sockets.add(upstream);
				AtomicBoolean isGet = new AtomicBoolean();
				start(() -> copyRequests(client, upstream, isGet));
				start(() -> copyResponses(upstream, client, isGet));
			}
			catch (IOException ex) {
				return;
			}
		}
	}

	/** Client to upstream; a connection that sends a GET carries nothing else after it (the stream holds it). */
	private void copyRequests(Socket client, Socket upstream, AtomicBoolean isGet) {
		try (InputStream in = client.getInputStream(); OutputStream out = upstream.getOutputStream()) {
			byte[] buffer = new byte[8192];
			int read;
			while ((read = in.read(buffer)) >= 0) {
				String text = new String(buffer, 0, read, StandardCharsets.ISO_8859_1);
				int get = text.indexOf("GET /");
				if (get >= 0 && !isGet.get()) {
					int end = text.indexOf("\r\n\r\n", get);
					getHeads.add(text.substring(get, end < 0 ? text.length() : end));
					isGet.set(true);
				}
				out.write(buffer, 0, read);
				out.flush();
			}
		}
		catch (IOException ex) {
			// either side went away
		}
		closeQuietly(client, upstream);
	}

	/** Upstream to client; the first GET stream is dropped once it carried {@code eventsBeforeCut} events. */
	private void copyResponses(Socket upstream, Socket client, AtomicBoolean isGet) {
		int events = 0;
		try (InputStream in = upstream.getInputStream(); OutputStream out = client.getOutputStream()) {
			byte[] buffer = new byte[8192];
			int read;
			while ((read = in.read(buffer)) >= 0) {
				out.write(buffer, 0, read);
				out.flush();
				if (isGet.get()) {
					String text = new String(buffer, 0, read, StandardCharsets.ISO_8859_1);
					for (int at = text.indexOf("data:"); at >= 0; at = text.indexOf("data:", at + 1)) {
						events++;
					}
					if (events >= eventsBeforeCut && cut.compareAndSet(false, true)) {
						break;
					}
				}
			}
		}
		catch (IOException ex) {
			// either side went away
		}
		closeQuietly(client, upstream);
	}

	private static void start(Runnable copy) {
		Thread thread = new Thread(copy, "stream-cutting-proxy-copy");
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(Socket... sockets) {
		for (Socket socket : sockets) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}
	}

	@Override
	public void close() {
		closeQuietly(server);
		sockets.forEach(StreamCuttingProxy::closeQuietly);
	}

	private static void closeQuietly(ServerSocket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

}
