package dev.mcprelay.metrics;

/**
 * The paths the relay observes with its own meters and access log, and leaves out of Spring's HTTP observation:
 * {@code /mcp}, {@code /mcp/**} and {@code /{segment}/mcp}, that is, the MCP endpoints and whatever a client mistakes
 * for one.
 */
public final class McpPaths {

	private static final String MCP = "/mcp";

	private McpPaths() {
	}

	/**
	 * The server segment of an MCP path: {@code id} for {@code /mcp/{id}} and {@code /{id}/mcp}, {@code ""} for the
	 * default server's {@code /mcp}, {@code null} for any other path (including {@code /mcp/a/b}).
	 */
	public static String serverSegment(String path) {
		if (path.equals(MCP)) {
			return "";
		}
		if (path.startsWith("/mcp/")) {
			String rest = path.substring(MCP.length() + 1);
			return rest.isEmpty() || rest.indexOf('/') >= 0 ? null : rest;
		}
		int second = path.indexOf('/', 1);
		if (second > 1 && second == path.length() - MCP.length() && path.endsWith(MCP)) {
			return path.substring(1, second);
		}
		return null;
	}

	/** Whether {@code path} (within the application) is one of the relay's MCP paths. */
	public static boolean isMcpPath(String path) {
		if (path.equals(MCP) || path.startsWith("/mcp/")) {
			return true;
		}
		int second = path.indexOf('/', 1);
		return second > 1 && second == path.length() - MCP.length() && path.endsWith(MCP);
	}

}
