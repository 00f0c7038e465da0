// The interop scenarios, run by a client written with the official TypeScript SDK against one MCP endpoint
// (process.argv[2]), over Streamable HTTP, or over the legacy HTTP+SSE transport when process.argv[3] is "sse" (the
// SDK's SSEClientTransport, for an upstream that speaks only that). Prints one JSON transcript on stdout: everything an MCP client sees that must be the same
// directly and through mcp-relay. Values that differ from one session to the next (session ids, random log levels)
// are recorded only as facts about them.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const endpoint = new URL(process.argv[2]);
const transcript = {};

const client = new Client({ name: "mcp-relay-interop", version: "1.0.0" }, { capabilities: {} });
const legacySse = process.argv[3] === "sse";
const transport = legacySse ? new SSEClientTransport(endpoint) : new StreamableHTTPClientTransport(endpoint);
const logMessages = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  logMessages.push(notification.params);
});

await client.connect(transport);
transcript.initialize = {
  protocolVersion: legacySse ? undefined : transport.protocolVersion,
  serverName: client.getServerVersion()?.name,
  // The legacy transport has no session header: its session is the event stream itself.
  sessionIdIssued: legacySse || (typeof transport.sessionId === "string" && transport.sessionId.length > 0),
  capabilities: Object.keys(client.getServerCapabilities() ?? {}).sort(),
};

transcript.tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
transcript.echo = await client.callTool({ name: "echo", arguments: { message: "héllo \"relay\" ✓" } });
transcript.sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
transcript.tinyImage = await client.callTool({ name: "get-tiny-image", arguments: {} });
transcript.structured = await client.callTool({ name: "get-structured-content", arguments: { location: "New York" } });

const progress = [];
transcript.longRunning = await client.callTool(
  { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 3 } },
  undefined,
  { onprogress: (update) => progress.push([update.progress, update.total]) },
);
transcript.progress = progress;

const resources = (await client.listResources()).resources;
transcript.resources = resources.map((resource) => resource.uri);
transcript.readFirstResource = await client.readResource({ uri: resources[0].uri });
transcript.resourceTemplates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
const fromTemplate = await client.readResource({ uri: "demo://resource/dynamic/text/7" });
// The text names the time the server made it: keep its shape, not the clock.
fromTemplate.contents.forEach((content) => {
  content.text = content.text?.replace(/\d{1,2}:\d{2}:\d{2}( [AP]M)?/, "<time>");
});
transcript.readFromTemplate = fromTemplate;

transcript.prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name).sort();
transcript.simplePrompt = await client.getPrompt({ name: "simple-prompt" });
transcript.argsPrompt = await client.getPrompt({ name: "args-prompt", arguments: { city: "Lisbon", state: "PT" } });

// Server-to-client messages on the GET stream: the server logs to this session every few seconds once asked to.
await client.setLoggingLevel("debug");
await client.callTool({ name: "toggle-simulated-logging", arguments: {} });
const deadline = Date.now() + 15000;
while (logMessages.length === 0 && Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 100));
}
transcript.serverLogging = {
  received: logMessages.length > 0,
  fields: logMessages.length > 0 ? Object.keys(logMessages[0]).sort() : [],
};
await client.callTool({ name: "toggle-simulated-logging", arguments: {} });

// Ending the session with DELETE; the server then no longer knows it. (The legacy transport ends a session by closing
// its stream, which client.close() does below.)
if (!legacySse) {
  await transport.terminateSession();
  transcript.sessionTerminated = transport.sessionId === undefined;
  try {
    await client.listTools();
    transcript.afterTermination = "still answered";
  } catch (error) {
    transcript.afterTermination = String(error?.code ?? error?.message);
  }
}

await client.close();
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(0);
