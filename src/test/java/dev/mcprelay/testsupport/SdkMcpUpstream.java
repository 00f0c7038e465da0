package dev.mcprelay.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.springframework.http.HttpHeaders;

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
 * with {@code application/json}). Both offer {@code echo}; {@code /mcp} also offers {@code progress}, which sends a
 * progress notification and then holds its stream open until {@link #releaseProgress()} before sending the rest.
 * Every request's method, path and headers are recorded.
 */
public final class SdkMcpUpstream implements AutoCloseable {

	/** One request as the upstream saw it. */
	public record Seen(String method, String path, HttpHeaders headers) {
	}

	private static final McpJsonMapper JSON = McpJsonDefaults.getMapper();

	private final Tomcat tomcat = new Tomcat();

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	private volatile CountDownLatch progressGate = new CountDownLatch(1);

	private final McpSyncServer streamable;

	private final McpStatelessSyncServer stateless;

	public SdkMcpUpstream() {
		HttpServletStreamableServerTransportProvider streamableTransport = HttpServletStreamableServerTransportProvider
			.builder()
			.mcpEndpoint("/mcp")
			.build();
		this.streamable = McpServer.sync(streamableTransport)
			.serverInfo("sdk-upstream", "1.0.0")
			.capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
			.tools(echoTool(), progressTool())
			.requestTimeout(Duration.ofSeconds(30))
			.build();
		HttpServletStatelessServerTransport statelessTransport = HttpServletStatelessServerTransport.builder()
			.messageEndpoint("/stateless")
			.build();
		this.stateless = McpServer.sync(statelessTransport)
			.serverInfo("sdk-stateless-upstream", "1.0.0")
			.capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
			.tools(McpStatelessServerFeatures.SyncToolSpecification.builder()
				.tool(tool("echo", "Returns its message"))
				.callHandler((context, request) -> echo(request))
				.build())
			.build();
		try {
			tomcat.setBaseDir(Files.createTempDirectory("sdk-upstream").toString());
			tomcat.setPort(0);
			tomcat.getConnector().setProperty("address", "127.0.0.1");
			Context context = tomcat.addContext("", null);
			addRecordingFilter(context);
			Tomcat.addServlet(context, "streamable", streamableTransport).setAsyncSupported(true);
			context.addServletMappingDecoded("/mcp", "streamable");
			Tomcat.addServlet(context, "stateless", statelessTransport).setAsyncSupported(true);
			context.addServletMappingDecoded("/stateless", "stateless");
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

	public void clearSeen() {
		seen.clear();
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
		tomcat.stop();
		tomcat.destroy();
	}

	private void addRecordingFilter(Context context) {
		Filter recorder = (request, response, chain) -> {
			HttpServletRequest http = (HttpServletRequest) request;
			HttpHeaders headers = new HttpHeaders();
			Collections.list(http.getHeaderNames())
				.forEach(name -> headers.addAll(name, Collections.list(http.getHeaders(name))));
			seen.add(new Seen(http.getMethod(), http.getRequestURI(), headers));
			chain.doFilter(request, response);
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

	private static McpServerFeatures.SyncToolSpecification echoTool() {
		return McpServerFeatures.SyncToolSpecification.builder()
			.tool(tool("echo", "Returns its message"))
			.callHandler((exchange, request) -> echo(request))
			.build();
	}

	private McpServerFeatures.SyncToolSpecification progressTool() {
		return McpServerFeatures.SyncToolSpecification.builder()
			.tool(tool("progress", "Sends progress, waits to be released, sends more, then answers"))
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

	private static McpSchema.Tool tool(String name, String description) {
		return McpSchema.Tool.builder()
			.name(name)
			.description(description)
			.inputSchema(JSON, "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}")
			.build();
	}

	private static McpSchema.CallToolResult echo(McpSchema.CallToolRequest request) {
		Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
		return McpSchema.CallToolResult.builder().addTextContent(String.valueOf(arguments.get("message"))).build();
	}

}
