package dev.mcprelay.live;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * A POST on a session whose headers and first bytes of body are sent at once, the rest when {@link #finish} is called:
 * a request the front door admitted on its headers before a reload, forwarded after it.
 */
final class SlowCall implements AutoCloseable {

	private static final int SENT_FIRST = 10;

	private final Socket socket;

	private final byte[] body;

	private SlowCall(Socket socket, byte[] body) {
		this.socket = socket;
		this.body = body;
	}

	/** Begins {@code json} to {@code /mcp/v} on {@code session} with the credential header {@code credential}. */
	static SlowCall begin(LiveReloadFixture live, McpSession session, String credential, String json)
			throws IOException {
		byte[] body = json.getBytes(StandardCharsets.UTF_8);
		Socket socket = new Socket();
		socket.connect(new InetSocketAddress("127.0.0.1", TwoRelaysOverRedis.port(live.relay().context())), 5000);
		socket.setSoTimeout(30_000);
		OutputStream out = socket.getOutputStream();
		out.write(("POST /mcp/v HTTP/1.1\r\nHost: 127.0.0.1\r\n" + credential
				+ "\r\nContent-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\nMcp-Session-Id: "
				+ session.id() + "\r\nMCP-Protocol-Version: " + McpSession.PROTOCOL_VERSION
				+ "\r\nConnection: close\r\nContent-Length: " + body.length + "\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII));
		out.write(body, 0, SENT_FIRST);
		out.flush();
		return new SlowCall(socket, body);
	}

	/** Sends the rest of the body; the whole answer, up to the connection's close. */
	String finish() throws IOException {
		socket.getOutputStream().write(body, SENT_FIRST, body.length - SENT_FIRST);
		socket.getOutputStream().flush();
		InputStream in = socket.getInputStream();
		return new String(in.readAllBytes(), StandardCharsets.UTF_8);
	}

	@Override
	public void close() throws IOException {
		socket.close();
	}

}
