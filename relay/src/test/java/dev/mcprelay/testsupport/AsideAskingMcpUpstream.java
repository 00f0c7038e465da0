package dev.mcprelay.testsupport;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;

/**
 * An MCP Java SDK server (streamable HTTP, in the JVM, on 127.0.0.1) whose {@code ask-aside} tool asks the client for
 * a completion on its session's standalone GET stream, not on the call's own stream, as the TypeScript SDK's
 * {@code sendRequest} without a related request does: with no GET stream open the SDK fails the request at once
 * ({@code Stream unavailable}); else it waits for the client's answer (up to 30 s) and answers the call with what the
 * model said, or {@code sampling failed: } and the error it got ({@code isError}). {@code echo} answers its message.
 * The SDK offers no way to send a request on the standalone stream from a tool, so the tool finds its session in the
 * transport's session map.
 */
public final class AsideAskingMcpUpstream implements AutoCloseable {

	private static final TypeRef<McpSchema.CreateMessageResult> RESULT = new TypeRef<>() {
	};

	private final Tomcat tomcat = new Tomcat();

	private final HttpServletStreamableServerTransportProvider transport;

	private final McpSyncServer server;

	private final AtomicInteger asked = new AtomicInteger();

	/** An upstream on a free port, or on {@code port} (0: any free one). */
	public AsideAskingMcpUpstream(int port) {
		transport = HttpServletStreamableServerTransportProvider.builder().mcpEndpoint("/mcp").build();
		server = McpServer.sync(transport)
			.serverInfo("aside-asking-upstream", "1.0.0")
			.capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
			.tools(List.of(tool("ask-aside", (exchange, request) -> askAside(exchange.sessionId())),
					tool("echo", (exchange, request) -> text(String.valueOf(request.arguments().get("message")),
							false))))
			.requestTimeout(Duration.ofSeconds(30))
			.build();
		try {
			tomcat.setBaseDir(Files.createTempDirectory("aside-upstream").toString());
			tomcat.setPort(port);
			tomcat.getConnector().setProperty("address", "127.0.0.1");
			Context context = tomcat.addContext("", null);
			Tomcat.addServlet(context, "streamable", transport).setAsyncSupported(true);
			context.addServletMappingDecoded("/mcp", "streamable");
			tomcat.start();
		}
		catch (IOException | LifecycleException ex) {
			throw new IllegalStateException("Could not start the aside-asking upstream", ex);
		}
	}

	public String url() {
		return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/mcp";
	}

	public int port() {
		return tomcat.getConnector().getLocalPort();
	}

	/** How many times {@code ask-aside} sent its request. */
	public int asked() {
		return asked.get();
	}

	private McpSchema.CallToolResult askAside(String sessionId) {
		try {
			McpSchema.CreateMessageResult answer = session(sessionId).sendRequest(McpSchema.METHOD_SAMPLING_CREATE_MESSAGE,
					McpSchema.CreateMessageRequest.builder()
						.messages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER,
								new McpSchema.TextContent("Say hello"))))
						.maxTokens(16)
						.build(),
					RESULT)
				.doOnSubscribe(subscription -> asked.incrementAndGet())
				.block();
			return text("model said: " + ((McpSchema.TextContent) answer.content()).text(), false);
		}
		catch (RuntimeException ex) {
			return text("sampling failed: " + ex.getMessage(), true);
		}
	}

	@SuppressWarnings("unchecked")
	private McpStreamableServerSession session(String sessionId) {
		try {
			Field sessions = HttpServletStreamableServerTransportProvider.class.getDeclaredField("sessions");
			sessions.setAccessible(true);
			return ((Map<String, McpStreamableServerSession>) sessions.get(transport)).get(sessionId);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static McpServerFeatures.SyncToolSpecification tool(String name,
			java.util.function.BiFunction<io.modelcontextprotocol.server.McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler) {
		return McpServerFeatures.SyncToolSpecification.builder()
			.tool(McpSchema.Tool.builder()
				.name(name)
				.description("The " + name + " tool")
				.inputSchema(McpJsonDefaults.getMapper(),
						"{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}")
				.build())
			.callHandler(handler)
			.build();
	}

	private static McpSchema.CallToolResult text(String text, boolean error) {
		return McpSchema.CallToolResult.builder().addTextContent(text).isError(error).build();
	}

	@Override
	public void close() throws Exception {
		server.closeGracefully();
		tomcat.stop();
		tomcat.destroy();
	}

}
