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

/**
 * A TCP proxy on 127.0.0.1 in front of a port that goes silent the way a path does when a NAT or load balancer forgets
 * a flow, or the network partitions: each connection forwards both ways until the target sends it {@code trigger}
 * (that chunk is still forwarded), and from then on forwards nothing either way, closing nothing. Once any connection
 * has gone silent, the connections accepted after it are held the same way (accepted, nothing forwarded) when
 * {@code newConnectionsToo}, else they pass. For tests of a client that must notice silence, not only a closed
 * connection.
 */
public final class SilencingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int target;

	private final byte[] trigger;

	private final boolean newConnectionsToo;

	private volatile boolean silenced;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	public SilencingProxy(int target, String trigger, boolean newConnectionsToo) {
		this.target = target;
		this.trigger = trigger.getBytes(StandardCharsets.UTF_8);
		this.newConnectionsToo = newConnectionsToo;
		try {
			this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::accept, "silencing-proxy");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	public int port() {
		return server.getLocalPort();
	}

	/** Whether a connection has gone silent. */
	public boolean silenced() {
		return silenced;
	}

	private void accept() {
		while (!server.isClosed()) {
			try {
				Socket client = server.accept();
				sockets.add(client);
				if (silenced && newConnectionsToo) {
					continue;
				}
				Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
				sockets.add(upstream);
				boolean[] silent = new boolean[1];
				pipe(client.getInputStream(), upstream.getOutputStream(), silent, false);
				pipe(upstream.getInputStream(), client.getOutputStream(), silent, true);
			}
			catch (IOException closed) {
				return;
			}
		}
	}

	/**
	 * Copies {@code from} to {@code to} while the connection is not {@code silent}, then reads on and drops what it
	 * reads; {@code watched} is the target's side, whose {@code trigger} silences the connection.
	 */
	private void pipe(InputStream from, OutputStream to, boolean[] silent, boolean watched) {
		Thread pipe = new Thread(() -> {
			byte[] buffer = new byte[16384];
			try {
				for (int read; (read = from.read(buffer)) >= 0;) {
					synchronized (silent) {
						if (silent[0]) {
							continue;
						}
						to.write(buffer, 0, read);
						to.flush();
						if (watched && contains(buffer, read)) {
							silent[0] = true;
							silenced = true;
						}
					}
				}
			}
			catch (IOException closed) {
				// the proxy or a peer closed the connection
			}
		}, "silencing-proxy-pipe");
		pipe.setDaemon(true);
		pipe.start();
	}

	private boolean contains(byte[] buffer, int length) {
		outer: for (int start = 0; start + trigger.length <= length; start++) {
			for (int i = 0; i < trigger.length; i++) {
				if (buffer[start + i] != trigger[i]) {
					continue outer;
				}
			}
			return true;
		}
		return false;
	}

	@Override
	public void close() throws IOException {
		server.close();
		for (Socket socket : sockets) {
			socket.close();
		}
	}

}
