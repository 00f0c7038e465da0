package dev.mcprelay.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 in front of a port, as a network path between a client and a server (a relay and a
 * Sentinel): it forwards both ways until it is {@link #cut} (every connection through it closed, and each one accepted
 * while it is cut closed at once, as a path whose far end resets), then again once it {@link #pass passes}. It can
 * also {@link #delayFirstAnswer hold} the first answer of each new connection (a server slow to answer a handshake).
 * It counts the connections accepted and those still open ({@link #open}: not closed by the client).
 */
public final class CuttablePathProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int target;

	private volatile boolean cut;

	private volatile Duration firstAnswerDelay = Duration.ZERO;

	private final Set<Socket> clients = ConcurrentHashMap.newKeySet();

	private final Set<Socket> upstreams = ConcurrentHashMap.newKeySet();

	private final AtomicInteger accepted = new AtomicInteger();

	public CuttablePathProxy(int target) {
		this.target = target;
		try {
			this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::accept, "cuttable-path-proxy");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	public int port() {
		return server.getLocalPort();
	}

	/** Closes every connection through the proxy; the ones accepted until it {@link #pass passes} are closed at once. */
	public void cut() {
		cut = true;
		clients.forEach(CuttablePathProxy::closeQuietly);
		upstreams.forEach(CuttablePathProxy::closeQuietly);
	}

	/** Forwards the connections accepted from now on. */
	public void pass() {
		cut = false;
	}

	/** Holds the first answer of each connection accepted from now on for {@code delay}. */
	public void delayFirstAnswer(Duration delay) {
		firstAnswerDelay = delay;
	}

	/** How many connections the proxy accepted. */
	public int accepted() {
		return accepted.get();
	}

	/** How many connections accepted are still open (not closed by their client, nor cut). */
	public int open() {
		return (int) clients.stream().filter(socket -> !socket.isClosed()).count();
	}

	private void accept() {
		while (!server.isClosed()) {
			try {
				Socket client = server.accept();
				accepted.incrementAndGet();
				if (cut) {
					closeQuietly(client);
					continue;
				}
				clients.add(client);
				Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
				upstreams.add(upstream);
				pipe(client.getInputStream(), upstream.getOutputStream(), Duration.ZERO, client, upstream);
				pipe(upstream.getInputStream(), client.getOutputStream(), firstAnswerDelay, client, upstream);
			}
			catch (IOException closed) {
				if (server.isClosed()) {
					return;
				}
			}
		}
	}

	/** Copies {@code from} to {@code to}, the first chunk after {@code firstDelay}; closes both sockets at the end. */
	private void pipe(InputStream from, OutputStream to, Duration firstDelay, Socket client, Socket upstream) {
		Thread pipe = new Thread(() -> {
			byte[] buffer = new byte[16384];
			boolean first = true;
			try {
				for (int read; (read = from.read(buffer)) >= 0;) {
					if (first && !firstDelay.isZero()) {
						Thread.sleep(firstDelay.toMillis());
					}
					first = false;
					to.write(buffer, 0, read);
					to.flush();
				}
			}
			catch (IOException | InterruptedException closed) {
				// the proxy or a peer closed the connection
			}
			finally {
				closeQuietly(client);
				closeQuietly(upstream);
				upstreams.remove(upstream);
			}
		}, "cuttable-path-proxy-pipe");
		pipe.setDaemon(true);
		pipe.start();
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ignored) {
			// closed already
		}
	}

	@Override
	public void close() throws IOException {
		cut = true;
		server.close();
		clients.forEach(CuttablePathProxy::closeQuietly);
		upstreams.forEach(CuttablePathProxy::closeQuietly);
	}

}
