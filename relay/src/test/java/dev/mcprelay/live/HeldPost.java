package dev.mcprelay.live;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;

/**
 * A POST (typically a {@code tools/call}) sent the way a slow client sends it, on a connection of its own: its headers and the first
 * byte of its body (a leading space) at once ({@link #begin}), so that the front door admits it on the configuration
 * current then, and the rest of the body when the test says ({@link #rest}); its answer read after ({@link #answer}).
 * What a reload test uses to hold a request between its admission and its forwarding.
 */
final class HeldPost implements AutoCloseable {

	private final Socket socket;

	private final String pending;

	private HeldPost(Socket socket, String pending) {
		this.socket = socket;
		this.pending = pending;
	}

	/** A {@code tools/call} of {@code tool} with id {@code id}, its argument {@code message} "late". */
	static String toolsCall(int id, String tool) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":{\"message\":\"late\"}}}";
	}

	/**
	 * Sends the headers of a POST of {@code message} on {@code server}'s session {@code sessionId}, presenting
	 * {@code keyHeader: key} (none when {@code keyHeader} is {@code null}), and the first byte of its body (a space
	 * before the message).
	 */
	static HeldPost begin(int port, String keyHeader, String key, String server, String sessionId, String message)
			throws IOException {
		return sending(port, keyHeader, key, server, "MCP-Protocol-Version: " + McpSession.PROTOCOL_VERSION
				+ "\r\nMcp-Session-Id: " + sessionId + "\r\n", message);
	}

	/**
	 * Sends the headers of an MCP 2026-07-28 client's POST of {@code message} (JSON-RPC method {@code method}, no
	 * session) on {@code server}, presenting {@code keyHeader: key}, and the first byte of its body.
	 */
	static HeldPost beginWithoutSession(int port, String keyHeader, String key, String server, String method,
			String message) throws IOException {
		return sending(port, keyHeader, key, server, "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: " + method
				+ "\r\n", message);
	}

	private static HeldPost sending(int port, String keyHeader, String key, String server, String mcpHeaders,
			String message) throws IOException {
		String body = " " + message;
		byte[] content = body.getBytes(StandardCharsets.UTF_8);
		String head = "POST /mcp/" + server + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
				+ (keyHeader == null ? "" : keyHeader + ": " + key + "\r\n")
				+ "Content-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\n" + mcpHeaders
				+ "Content-Length: " + content.length + "\r\nConnection: close\r\n\r\n";
		Socket socket = new Socket();
		socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
		socket.setSoTimeout(60_000);
		OutputStream out = socket.getOutputStream();
		out.write(head.getBytes(StandardCharsets.ISO_8859_1));
		out.write(content, 0, 1);
		out.flush();
		return new HeldPost(socket, body.substring(1));
	}

	/** Sends the rest of the body (the tool's name and arguments). */
	HeldPost rest() throws IOException {
		socket.getOutputStream().write(pending.getBytes(StandardCharsets.UTF_8));
		socket.getOutputStream().flush();
		return this;
	}

	/** Reads the answer (within the socket's 60 s). */
	RawSocketHttp.Response answer() throws IOException {
		return RawSocketHttp.read(socket.getInputStream());
	}

	/** Sends the rest of the body and reads the answer. */
	RawSocketHttp.Response finish() throws IOException {
		return rest().answer();
	}

	@Override
	public void close() throws IOException {
		socket.close();
	}

}
