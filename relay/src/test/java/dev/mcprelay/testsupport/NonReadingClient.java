package dev.mcprelay.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A client of the relay that sends one POST and then reads nothing of the answer, on a socket whose receive buffer is
 * small (4 KB), so that the relay meets a client that stopped reading almost at once: what the relay hands the
 * connection stays with the relay. For the bounds on what a stalled client holds and when it is cut
 * ({@code sessions.max-held-bytes}, {@code timeouts.client-write}).
 */
public final class NonReadingClient implements AutoCloseable {

	private final Socket socket = new Socket();

	private NonReadingClient() {
	}

	/**
	 * Connects to the relay on {@code port} and sends a POST of {@code body} to {@code path}, accepting JSON and event
	 * streams, with {@code extraHeaders} (each a whole header line without its line end), then reads nothing.
	 */
	public static NonReadingClient post(int port, String path, String body, String... extraHeaders) throws IOException {
		NonReadingClient client = new NonReadingClient();
		client.socket.setReceiveBufferSize(4096);
		client.socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
		StringBuilder head = new StringBuilder("POST ").append(path)
			.append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: ")
			.append(RawHttp.ACCEPT_BOTH)
			.append("\r\n");
		for (String header : extraHeaders) {
			head.append(header).append("\r\n");
		}
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		head.append("Content-Length: ").append(bytes.length).append("\r\n\r\n");
		OutputStream out = client.socket.getOutputStream();
		out.write(head.toString().getBytes(StandardCharsets.UTF_8));
		out.write(bytes);
		out.flush();
		return client;
	}

	/**
	 * Reads what is left now the test has seen what it waited for: -1 once the relay closed the connection, else what
	 * the last read returned when 10 s went by without one.
	 */
	public int readToTheEnd() throws IOException {
		socket.setSoTimeout(10_000);
		InputStream in = socket.getInputStream();
		byte[] buffer = new byte[64 * 1024];
		int read = 0;
		while (read >= 0) {
			try {
				read = in.read(buffer);
			}
			catch (SocketTimeoutException open) {
				return read;
			}
			catch (SocketException reset) {
				return -1;
			}
		}
		return read;
	}

	/**
	 * The first access-log line captured since {@code logMark} ({@link CapturedLogs}) holding every one of
	 * {@code parts}, waited for up to 60 s.
	 */
	public static String awaitAccessLine(int logMark, String... parts) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (System.nanoTime() < deadline) {
			for (String line : CapturedLogs.since(logMark)) {
				if (line.contains("mcp.relay.access") && containsAll(line, parts)) {
					return line;
				}
			}
			Thread.sleep(20);
		}
		throw new AssertionError("waited 60s in vain for an access-log line with " + String.join(", ", parts));
	}

	private static boolean containsAll(String line, String[] parts) {
		for (String part : parts) {
			if (!line.contains(part)) {
				return false;
			}
		}
		return true;
	}

	@Override
	public void close() throws IOException {
		socket.close();
	}

}
