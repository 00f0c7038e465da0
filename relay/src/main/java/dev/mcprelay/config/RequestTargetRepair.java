package dev.mcprelay.config;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;

/**
 * Percent-encodes the characters a request target may not hold ({@code \}, {@code "}, {@code <}, {@code >},
 * {@code ^}, {@code `}, <code>{</code>, {@code |}, <code>}</code>, {@code [}, {@code ]}, anything outside printable
 * ASCII, and a {@code %} that starts no escape) before the request reaches Spring, on every client connection.
 *
 * <p>Spring's adapter answers a request whose target is no URI with 400 and an empty body before any of the relay's
 * code runs, so a client would get no JSON-RPC error and the request would be neither counted nor logged. Encoded,
 * the target reaches the relay's one routing decision like any other: {@code /mcp\acme} becomes
 * {@code /mcp%5Cacme}, which is refused as an ambiguous path (400, {@code ambiguous_path}); a target that is no MCP
 * path reaches Spring's routes and is not found (404). Nothing that was a valid target changes: for those this
 * handler only reads the target once.
 */
@ChannelHandler.Sharable
final class RequestTargetRepair extends ChannelInboundHandlerAdapter {

	static final String NAME = "mcpRelayRequestTargetRepair";

	static final RequestTargetRepair INSTANCE = new RequestTargetRepair();

	private static final char[] HEX = "0123456789ABCDEF".toCharArray();

	private RequestTargetRepair() {
	}

	@Override
	public void channelRead(ChannelHandlerContext ctx, Object msg) {
		if (msg instanceof HttpRequest request) {
			String target = request.uri();
			if (!isValid(target)) {
				request.setUri(repaired(target));
			}
		}
		ctx.fireChannelRead(msg);
	}

	/** Whether {@code target} holds only characters a URI may hold, with every {@code %} starting an escape. */
	static boolean isValid(String target) {
		for (int i = 0; i < target.length(); i++) {
			char c = target.charAt(i);
			if (c == '%') {
				if (!isEscape(target, i)) {
					return false;
				}
			}
			else if (isIllegal(c)) {
				return false;
			}
		}
		return true;
	}

	/** {@code target} with each illegal character, and each {@code %} that starts no escape, percent-encoded. */
	static String repaired(String target) {
		StringBuilder repaired = new StringBuilder(target.length() + 16);
		for (int i = 0; i < target.length(); i++) {
			char c = target.charAt(i);
			if ((c == '%' && !isEscape(target, i)) || (c != '%' && isIllegal(c))) {
				int b = c & 0xFF;
				repaired.append('%').append(HEX[b >> 4]).append(HEX[b & 0xF]);
			}
			else {
				repaired.append(c);
			}
		}
		return repaired.toString();
	}

	private static boolean isEscape(String target, int at) {
		return at + 2 < target.length() && Character.digit(target.charAt(at + 1), 16) >= 0
				&& Character.digit(target.charAt(at + 2), 16) >= 0;
	}

	private static boolean isIllegal(char c) {
		return c <= ' ' || c >= 0x7f || c == '\\' || c == '"' || c == '<' || c == '>' || c == '^' || c == '`'
				|| c == '{' || c == '|' || c == '}' || c == '[' || c == ']';
	}

}
