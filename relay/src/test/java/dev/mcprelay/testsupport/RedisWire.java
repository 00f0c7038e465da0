package dev.mcprelay.testsupport;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One Redis command over a connection of its own, in RESP2, for tests that look at a Redis the relay uses (its keys,
 * its replication, a Cluster's or a Sentinel's state) without another client library: a simple string or bulk string
 * as {@link String}, an integer as {@link Long}, an array as {@link List}, a nil as {@code null}, an error as a
 * {@link RedisWire.Refused}.
 */
public final class RedisWire {

	private RedisWire() {
	}

	/** Redis answered with an error ({@code -ERR ...}, {@code -MOVED ...}). */
	public static final class Refused extends RuntimeException {

		Refused(String message) {
			super(message);
		}

	}

	/** Sends {@code command} to 127.0.0.1:{@code port} and reads its answer. */
	public static Object call(int port, String... command) throws IOException {
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			ByteArrayOutputStream request = new ByteArrayOutputStream();
			request.writeBytes(("*" + command.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
			for (String part : command) {
				byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
				request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
				request.writeBytes(bytes);
				request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
			}
			out.write(request.toByteArray());
			out.flush();
			Object answer = read(new BufferedInputStream(socket.getInputStream()));
			if (answer instanceof Refused refused) {
				throw refused;
			}
			return answer;
		}
	}

	/** {@link #call} for a command whose answer is text (a status, a bulk string such as {@code INFO}'s). */
	public static String text(int port, String... command) throws IOException {
		return (String) call(port, command);
	}

	/** {@code INFO}-style text's value for {@code field} ({@code field:value} lines), or {@code null}. */
	public static String field(String info, String field) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(field.length() + 1).strip();
			}
		}
		return null;
	}

	/** Whether 127.0.0.1:{@code port} answers {@code PING}. */
	public static boolean answers(int port) {
		try {
			return "PONG".equals(call(port, "PING"));
		}
		catch (IOException | Refused notNow) {
			return false;
		}
	}

	private static Object read(InputStream in) throws IOException {
		int type = in.read();
		String line = line(in);
		switch (type) {
			case '+':
				return line;
			case '-':
				return new Refused(line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] bytes = in.readNBytes(length);
				in.readNBytes(2);
				return new String(bytes, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					items.add(read(in));
				}
				return items;
			}
			default:
				throw new IOException("not a RESP2 answer: " + (char) type + line);
		}
	}

	private static String line(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		for (int b = in.read(); b != -1; b = in.read()) {
			if (previous == '\r' && b == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(b);
			previous = b;
		}
		throw new IOException("Redis closed the connection");
	}

}
