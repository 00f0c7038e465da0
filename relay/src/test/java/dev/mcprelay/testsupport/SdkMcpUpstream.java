package dev.mcprelay.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.concurrent.TimeUnit;

import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.JsonNode;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Real MCP servers from the official MCP Java SDK, hosted by an embedded Tomcat on 127.0.0.1: {@code /mcp} is a
 * Streamable HTTP server (answers requests over SSE, keeps sessions), {@code /stateless} a stateless one (answers
 * with {@code application/json}). Both offer:
 * <ul>
 * <li>tools {@code echo} (returns its {@code message} argument; its listing carries {@code _meta}),
 * {@code secret_admin} and {@code secret_audit} (both echo too; {@code echo} and {@code secret_audit} annotated
 * {@code readOnlyHint: true}, {@code secret_admin} {@code readOnlyHint: false, destructiveHint: true}), and {@code whoami} (answers with the arguments it
 * received; its schema declares reserved {@code _tenant} and {@code _trace});</li>
 * <li>prompt {@code greeting} (argument {@code name});</li>
 * <li>resource {@code memo://one} and resource template {@code memo://{id}}, with subscriptions: a session's
 * {@code resources/subscribe} of a URI makes {@link #notifyResourceUpdated} tell it of that URI.</li>
 * </ul>
 * {@code /mcp} also offers {@code progress}, which sends a progress notification and then holds its stream open until
 * {@link #releaseProgress()} before sending the rest, and {@code ask-model}, which asks the client for a completion
 * ({@code sampling/createMessage} on the call's stream) and answers with what the model said, or with the error it
 * got ({@code isError}); {@code /stateless} offers {@code slow}, which answers after
 * {@link #SLOW_TOOL_DELAY}. {@code /tools-only} is a stateless server with {@code /stateless}'s tools and nothing
 * else (no resources capability: it answers {@code resources/list} and {@code resources/templates/list} -32601, method
 * not found, as such servers do); {@code /prompts-only} one with {@code greeting} and nothing else (it answers
 * {@code tools/list} -32601). Every request's method, path and headers are recorded.
 */
public final class SdkMcpUpstream implements AutoCloseable {

	/**
	 * One request as the upstream saw it.
	 *
	 * @param body the request body (empty for GET and DELETE)
	 */
	public record Seen(String method, String path, HttpHeaders headers, String body) {

		/** The body as JSON; a JSON-RPC message or batch. */
		public JsonNode json() {
			return RawHttp.json(body);
		}

	}

	private static final McpJsonMapper JSON = McpJsonDefaults.getMapper();

	/** How long the {@code slow} tool takes to answer. */
	public static final Duration SLOW_TOOL_DELAY = Duration.ofSeconds(3);

	/** The {@code _meta} of the {@code echo} tool's listing. */
	public static final Map<String, Object> ECHO_META = Map.of("vendor.example/rank", 1);

	private static final List<String> ECHOING_TOOLS = List.of("echo", "secret_admin", "secret_audit");

	private static final McpSchema.Prompt GREETING = new McpSchema.Prompt("greeting", "Greets someone",
			List.of(new McpSchema.PromptArgument("name", "Who to greet", true)));

	private static final McpSchema.Resource MEMO = McpSchema.Resource.builder()
		.uri("memo://one")
		.name("memo-one")
		.mimeType("text/plain")
		.build();

	private static final McpSchema.ResourceTemplate MEMO_TEMPLATE = McpSchema.ResourceTemplate.builder()
		.uriTemplate("memo://{id}")
		.name("memo")
		.mimeType("text/plain")
		.build();

	private static final McpSchema.ServerCapabilities CAPABILITIES = McpSchema.ServerCapabilities.builder()
		.tools(true)
		.prompts(true)
		.resources(true, true)
		.build();

	private final Tomcat tomcat = new Tomcat();

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	private final java.util.concurrent.atomic.AtomicInteger getsServed = new java.util.concurrent.atomic.AtomicInteger();

	private volatile CountDownLatch progressGate = new CountDownLatch(1);

	private volatile Consumer<McpSchema.CallToolRequest> toolCallObserver = request -> {
	};

	private final McpSyncServer streamable;

	private final McpStatelessSyncServer stateless;

	private final McpStatelessSyncServer toolsOnly;

	private final McpStatelessSyncServer promptsOnly;

	public SdkMcpUpstream() {
		this(false, 0);
	}

	/** An upstream on {@code port} (one a test keeps free until the member is to be up). */
	public static SdkMcpUpstream onPort(int port) {
		return new SdkMcpUpstream(false, port);
	}

	/**
	 * An upstream whose {@code /mcp} also offers {@code burst}: {@code count} progress notifications (to the call's
	 * {@code progressToken}) each carrying a message of {@code size} characters, on the call's stream, then its result;
	 * a server that streams many large events. Written as the SDK writes, so a reader that stops reading stops it.
	 */
	public static SdkMcpUpstream withBurst() {
		return new SdkMcpUpstream(true, 0);
	}

	private SdkMcpUpstream(boolean burst, int port) {
		HttpServletStreamableServerTransportProvider streamableTransport = HttpServletStreamableServerTransportProvider
			.builder()
			.mcpEndpoint("/mcp")
			.build();
		List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
		ECHOING_TOOLS.forEach(name -> tools.add(McpServerFeatures.SyncToolSpecification.builder()
			.tool(tool(name))
			.callHandler((exchange, request) -> {
				toolCallObserver.accept(request);
				return echo(request);
			})
			.build()));
		tools.add(progressTool());
		tools.add(askModelTool());
		if (burst) {
			tools.add(burstTool());
		}
		tools.add(McpServerFeatures.SyncToolSpecification.builder()
			.tool(WHOAMI)
			.callHandler((exchange, request) -> whoami(request))
			.build());
		this.streamable = McpServer.sync(streamableTransport)
			.serverInfo("sdk-upstream", "1.0.0")
			.capabilities(CAPABILITIES)
			.tools(tools)
			.prompts(new McpServerFeatures.SyncPromptSpecification(GREETING, (exchange, request) -> greet(request)))
			.resources(new McpServerFeatures.SyncResourceSpecification(MEMO, (exchange, request) -> read(request)))
			.resourceTemplates(new McpServerFeatures.SyncResourceTemplateSpecification(MEMO_TEMPLATE,
					(exchange, request) -> read(request)))
			.requestTimeout(Duration.ofSeconds(30))
			.build();
		HttpServletStatelessServerTransport statelessTransport = HttpServletStatelessServerTransport.builder()
			.messageEndpoint("/stateless")
			.build();
		List<McpStatelessServerFeatures.SyncToolSpecification> statelessTools = new ArrayList<>();
		ECHOING_TOOLS.forEach(name -> statelessTools.add(McpStatelessServerFeatures.SyncToolSpecification.builder()
			.tool(tool(name))
			.callHandler((context, request) -> echo(request))
			.build()));
		statelessTools.add(McpStatelessServerFeatures.SyncToolSpecification.builder()
			.tool(WHOAMI)
			.callHandler((context, request) -> whoami(request))
			.build());
		statelessTools.add(McpStatelessServerFeatures.SyncToolSpecification.builder()
			.tool(tool("slow"))
			.callHandler((context, request) -> {
				sleep(SLOW_TOOL_DELAY);
				return McpSchema.CallToolResult.builder().addTextContent("slow answer").build();
			})
			.build());
		this.stateless = McpServer.sync(statelessTransport)
			.serverInfo("sdk-stateless-upstream", "1.0.0")
			.capabilities(CAPABILITIES)
			.tools(statelessTools)
			.prompts(new McpStatelessServerFeatures.SyncPromptSpecification(GREETING,
					(context, request) -> greet(request)))
			.resources(new McpStatelessServerFeatures.SyncResourceSpecification(MEMO,
					(context, request) -> read(request)))
			.resourceTemplates(new McpStatelessServerFeatures.SyncResourceTemplateSpecification(MEMO_TEMPLATE,
					(context, request) -> read(request)))
			.build();
		HttpServletStatelessServerTransport toolsOnlyTransport = HttpServletStatelessServerTransport.builder()
			.messageEndpoint("/tools-only")
			.build();
		this.toolsOnly = McpServer.sync(toolsOnlyTransport)
			.serverInfo("sdk-tools-only-upstream", "1.0.0")
			.capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
			.tools(statelessTools)
			.build();
		HttpServletStatelessServerTransport promptsOnlyTransport = HttpServletStatelessServerTransport.builder()
			.messageEndpoint("/prompts-only")
			.build();
		this.promptsOnly = McpServer.sync(promptsOnlyTransport)
			.serverInfo("sdk-prompts-only-upstream", "1.0.0")
			.capabilities(McpSchema.ServerCapabilities.builder().prompts(true).build())
			.prompts(new McpStatelessServerFeatures.SyncPromptSpecification(GREETING,
					(context, request) -> greet(request)))
			.build();
		try {
			tomcat.setBaseDir(Files.createTempDirectory("sdk-upstream").toString());
			tomcat.setPort(port);
			tomcat.getConnector().setProperty("address", "127.0.0.1");
			Context context = tomcat.addContext("", null);
			addRecordingFilter(context);
			Tomcat.addServlet(context, "streamable", streamableTransport).setAsyncSupported(true);
			context.addServletMappingDecoded("/mcp", "streamable");
			Tomcat.addServlet(context, "stateless", statelessTransport).setAsyncSupported(true);
			context.addServletMappingDecoded("/stateless", "stateless");
			Tomcat.addServlet(context, "tools-only", toolsOnlyTransport).setAsyncSupported(true);
			context.addServletMappingDecoded("/tools-only", "tools-only");
			Tomcat.addServlet(context, "prompts-only", promptsOnlyTransport).setAsyncSupported(true);
			context.addServletMappingDecoded("/prompts-only", "prompts-only");
			tomcat.start();
		}
		catch (IOException | LifecycleException ex) {
			throw new IllegalStateException("Could not start the SDK upstream", ex);
		}
	}

	public String url(String path) {
		return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + path;
	}

	public List<Seen> seen() {
		return Collections.unmodifiableList(seen);
	}

	/**
	 * How many GETs {@code /mcp} or {@code /stateless} has taken so far: a stream a GET opened is the session's
	 * listening stream once this counts it (the SDK registers it before its servlet returns).
	 */
	public int getsServed() {
		return getsServed.get();
	}

	public void clearSeen() {
		seen.clear();
	}

	/**
	 * Hands every call of an echoing tool on {@code /mcp} to {@code observer}, in the server's handler, before it is
	 * answered (a test's stand-in for the upstream's own instrumentation).
	 */
	public void observeToolCalls(Consumer<McpSchema.CallToolRequest> observer) {
		this.toolCallObserver = observer;
	}

	/**
	 * Adds {@code count} tools to {@code /mcp}, {@code bulk_0} on, each described by {@code descriptionChars}
	 * characters of text (a server with a large catalogue); called before any session opens, so none is told.
	 */
	public void addBulkTools(int count, int descriptionChars) {
		String text = "bulk tool text ".repeat(descriptionChars / 15 + 1).substring(0, descriptionChars);
		for (int tool = 0; tool < count; tool++) {
			streamable.addTool(McpServerFeatures.SyncToolSpecification.builder()
				.tool(McpSchema.Tool.builder()
					.name("bulk_" + tool)
					.description(text)
					.inputSchema(JSON, "{\"type\":\"object\"}")
					.build())
				.callHandler((exchange, request) -> echo(request))
				.build());
		}
	}

	/**
	 * Tells every session of {@code /mcp} that its tools changed ({@code notifications/tools/list_changed}), on the
	 * session's GET stream, as a server whose catalogue changed does.
	 */
	public void notifyToolsListChanged() {
		streamable.notifyToolsListChanged();
	}

	/**
	 * Publishes the echoing tool {@code name} of {@code /mcp} again, saying it only reads or not: the server removes
	 * and adds it, and tells each session's GET stream {@code notifications/tools/list_changed} (a server that changed
	 * what it says of a tool).
	 */
	public void republish(String name, boolean readOnly) {
		McpSchema.Tool published = tool(name);
		streamable.removeTool(name);
		streamable.addTool(McpServerFeatures.SyncToolSpecification.builder()
			.tool(McpSchema.Tool.builder()
				.name(name)
				.description(published.description())
				.inputSchema(published.inputSchema())
				.meta(published.meta())
				.annotations(new McpSchema.ToolAnnotations(null, readOnly, !readOnly, readOnly, false, null))
				.build())
			.callHandler((exchange, request) -> {
				toolCallObserver.accept(request);
				return echo(request);
			})
			.build());
	}

	/**
	 * Tells every session of {@code /mcp} that subscribed to {@code uri} that it changed
	 * ({@code notifications/resources/updated}, on the session's GET stream), as a server whose resource changed does;
	 * returns once the server has sent it.
	 */
	public void notifyResourceUpdated(String uri) {
		streamable.notifyResourcesUpdated(new McpSchema.ResourcesUpdatedNotification(uri));
	}

	/** Lets a {@code progress} call that is holding its stream open finish. */
	public void releaseProgress() {
		progressGate.countDown();
	}

	public void resetProgressGate() {
		progressGate = new CountDownLatch(1);
	}

	@Override
	public void close() throws Exception {
		streamable.closeGracefully();
		stateless.closeGracefully();
		toolsOnly.closeGracefully();
		promptsOnly.closeGracefully();
		tomcat.stop();
		tomcat.destroy();
	}

	private void addRecordingFilter(Context context) {
		Filter recorder = (request, response, chain) -> {
			HttpServletRequest http = (HttpServletRequest) request;
			HttpHeaders headers = new HttpHeaders();
			Collections.list(http.getHeaderNames())
				.forEach(name -> headers.addAll(name, Collections.list(http.getHeaders(name))));
			byte[] body = http.getInputStream().readAllBytes();
			seen.add(new Seen(http.getMethod(), http.getRequestURI(), headers, new String(body, StandardCharsets.UTF_8)));
			chain.doFilter(new ReplayedBodyRequest(http, body), response);
			if ("GET".equals(http.getMethod())) {
				getsServed.incrementAndGet();
			}
		};
		FilterDef def = new FilterDef();
		def.setFilterName("recorder");
		def.setFilter(recorder);
		def.setAsyncSupported("true");
		context.addFilterDef(def);
		FilterMap map = new FilterMap();
		map.setFilterName("recorder");
		map.addURLPattern("/*");
		context.addFilterMap(map);
	}

	private McpServerFeatures.SyncToolSpecification progressTool() {
		return McpServerFeatures.SyncToolSpecification.builder()
			.tool(tool("progress"))
			.callHandler((exchange, request) -> {
				Object token = request.progressToken();
				exchange.progressNotification(new McpSchema.ProgressNotification(token, 1.0, 3.0, "first"));
				try {
					if (!progressGate.await(10, TimeUnit.SECONDS)) {
						return McpSchema.CallToolResult.builder().addTextContent("never released").isError(true).build();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				exchange.progressNotification(new McpSchema.ProgressNotification(token, 2.0, 3.0, "second"));
				exchange.progressNotification(new McpSchema.ProgressNotification(token, 3.0, 3.0, "third"));
				return McpSchema.CallToolResult.builder().addTextContent("done").build();
			})
			.build();
	}

	private static McpServerFeatures.SyncToolSpecification burstTool() {
		return McpServerFeatures.SyncToolSpecification.builder()
			.tool(McpSchema.Tool.builder()
				.name("burst")
				.description("Streams count progress notifications of size characters, then answers")
				.inputSchema(JSON, "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"},"
						+ "\"size\":{\"type\":\"integer\"}}}")
				.build())
			.callHandler((exchange, request) -> {
				int count = ((Number) request.arguments().get("count")).intValue();
				String message = "x".repeat(((Number) request.arguments().get("size")).intValue());
				for (int i = 1; i <= count; i++) {
					exchange.progressNotification(
							new McpSchema.ProgressNotification(request.progressToken(), i, (double) count, message));
				}
				return McpSchema.CallToolResult.builder().addTextContent("burst of " + count).build();
			})
			.build();
	}

	private McpServerFeatures.SyncToolSpecification askModelTool() {
		return McpServerFeatures.SyncToolSpecification.builder()
			.tool(tool("ask-model"))
			.callHandler((exchange, request) -> {
				try {
					McpSchema.CreateMessageResult answer = exchange.createMessage(McpSchema.CreateMessageRequest.builder()
						.messages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER,
								new McpSchema.TextContent("Say hello"))))
						.maxTokens(16)
						.build());
					return McpSchema.CallToolResult.builder()
						.addTextContent("model said: " + ((McpSchema.TextContent) answer.content()).text())
						.build();
				}
				catch (RuntimeException ex) {
					return McpSchema.CallToolResult.builder()
						.addTextContent("sampling failed: " + ex.getMessage())
						.isError(true)
						.build();
				}
			})
			.build();
	}

	/**
	 * {@code whoami}: answers with its arguments as JSON text, exactly as it received them. Its schema declares the
	 * reserved {@code _tenant} (required) and {@code _trace}, besides {@code message} (required) and {@code region}.
	 */
	private static final McpSchema.Tool WHOAMI = McpSchema.Tool.builder()
		.name("whoami")
		.description("Answers with the arguments it received")
		.inputSchema(JSON, "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"},"
				+ "\"_tenant\":{\"type\":\"string\"},\"_trace\":{\"type\":\"string\"},\"region\":{\"type\":\"string\"}},"
				+ "\"required\":[\"_tenant\",\"message\"]}")
		.build();

	private static McpSchema.CallToolResult whoami(McpSchema.CallToolRequest request) {
		try {
			return McpSchema.CallToolResult.builder()
				.addTextContent(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(request.arguments()))
				.build();
		}
		catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static McpSchema.Tool tool(String name) {
		return McpSchema.Tool.builder()
			.name(name)
			.description("The " + name + " tool")
			.inputSchema(JSON, "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}")
			.meta(name.equals("echo") ? ECHO_META : null)
			.annotations(annotationsOf(name))
			.build();
	}

	/**
	 * {@code echo} and {@code secret_audit} say they only read, {@code secret_admin} that it may destroy (for the
	 * policies that read a tool's annotations); the others say nothing.
	 */
	private static McpSchema.ToolAnnotations annotationsOf(String name) {
		return switch (name) {
			case "echo", "secret_audit" -> new McpSchema.ToolAnnotations(null, true, false, true, false, null);
			case "secret_admin" -> new McpSchema.ToolAnnotations(null, false, true, false, false, null);
			default -> null;
		};
	}

	private static McpSchema.GetPromptResult greet(McpSchema.GetPromptRequest request) {
		Object name = request.arguments() == null ? null : request.arguments().get("name");
		return new McpSchema.GetPromptResult("A greeting", List.of(new McpSchema.PromptMessage(McpSchema.Role.USER,
				new McpSchema.TextContent("Hello, " + name + "!"))));
	}

	private static McpSchema.ReadResourceResult read(McpSchema.ReadResourceRequest request) {
		return new McpSchema.ReadResourceResult(
				List.of(new McpSchema.TextResourceContents(request.uri(), "text/plain", "memo at " + request.uri())));
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static McpSchema.CallToolResult echo(McpSchema.CallToolRequest request) {
		Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
		return McpSchema.CallToolResult.builder().addTextContent(String.valueOf(arguments.get("message"))).build();
	}

}
