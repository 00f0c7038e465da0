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

	/** Whether {@code path} (within the application) is one of the relay's MCP paths. */
	public static boolean isMcpPath(String path) {
		if (path.equals(MCP) || path.startsWith("/mcp/")) {
			return true;
		}
		int second = path.indexOf('/', 1);
		return second > 1 && second == path.length() - MCP.length() && path.endsWith(MCP);
	}

}
