package dev.mcprelay.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for requests no HTTP client would send as written: a request line with any path bytes
 * (percent-encoding, backslashes, dot segments kept as they are), several requests on one connection, conflicting
 * framing headers. Reads responses with {@code Content-Length} or chunked bodies, or up to the end of the connection.
 */
public final class RawSocketHttp {

	/** One response as read from the socket. */
	public record Response(int status, Map<String, String> headers, String body) {

		/** A header's value (the last one when repeated), by case-insensitive name; {@code null} when absent. */
		public String header(String name) {
			return headers.get(name.toLowerCase(Locale.ROOT));
		}

	}

	private RawSocketHttp() {
	}

	/** Sends {@code request} (the exact bytes) on a new connection and reads every response until it closes. */
	public static java.util.List<Response> exchange(int port, String request) {
		return exchange(port, request, Integer.MAX_VALUE);
	}

	/**
	 * Sends {@code request} (the exact bytes) on a new connection and reads responses until {@code expected} have
	 * arrived or the connection closes.
	 */
	public static java.util.List<Response> exchange(int port, String request, int expected) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			socket.setSoTimeout(10_000);
			OutputStream out = socket.getOutputStream();
			out.write(request.getBytes(StandardCharsets.ISO_8859_1));
			out.flush();
			InputStream in = socket.getInputStream();
			java.util.List<Response> responses = new java.util.ArrayList<>();
			Response response;
			while (responses.size() < expected && (response = read(in)) != null) {
				responses.add(response);
			}
			return responses;
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** A connection of its own, kept open across requests, for what depends on the connection (keep-alive). */
	public static Connection open(int port) {
		try {
			Socket socket = new Socket();
			socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			socket.setSoTimeout(10_000);
			return new Connection(socket);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** One open connection: each {@link #exchange} sends a request on it and reads its one response. */
	public static final class Connection implements AutoCloseable {

		private final Socket socket;

		private Connection(Socket socket) {
			this.socket = socket;
		}

		/** Sends {@code request} (the exact bytes) and reads one response; {@code null} if the connection closed. */
		public Response exchange(String request) {
			try {
				socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
				socket.getOutputStream().flush();
				return read(socket.getInputStream());
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

		@Override
		public void close() {
			try {
				socket.close();
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	/** One request, {@code Connection: close}: the single response. */
	public static Response send(int port, String method, String path, Map<String, String> headers, String body) {
		StringBuilder request = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n");
		request.append("Host: 127.0.0.1:").append(port).append("\r\n");
		headers.forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
		byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
		if (body != null) {
			request.append("Content-Length: ").append(content.length).append("\r\n");
		}
		request.append("Connection: close\r\n\r\n");
		java.util.List<Response> responses = exchange(port,
				request + new String(content, StandardCharsets.ISO_8859_1));
		if (responses.isEmpty()) {
			throw new IllegalStateException("No response to " + method + " " + path);
		}
		return responses.get(0);
	}

	/** Reads one response from {@code in}; {@code null} when the connection closed before one. */
	public static Response read(InputStream in) throws IOException {
		String statusLine = line(in);
		if (statusLine == null || statusLine.isEmpty()) {
			return null;
		}
		int status = Integer.parseInt(statusLine.split(" ")[1]);
		Map<String, String> headers = new LinkedHashMap<>();
		String header;
		while ((header = line(in)) != null && !header.isEmpty()) {
			int colon = header.indexOf(':');
			headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim());
		}
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
			String size;
			while ((size = line(in)) != null) {
				int length = Integer.parseInt(size.split(";")[0].trim(), 16);
				if (length == 0) {
					line(in);
					break;
				}
				body.write(in.readNBytes(length));
				line(in);
			}
		}
		else if (headers.containsKey("content-length")) {
			body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
		}
		else if (status != 204 && status != 304) {
			body.write(in.readAllBytes());
		}
		return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
	}

	private static String line(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = in.read()) != -1) {
			if (c == '\n') {
				int end = line.length();
				return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
			}
			line.append((char) c);
		}
		return line.length() == 0 ? null : line.toString();
	}

}
