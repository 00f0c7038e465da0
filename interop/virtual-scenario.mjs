// A virtual server of mcp-relay (one endpoint composing several MCP servers) seen by a client written with the
// official TypeScript SDK (Streamable HTTP) at process.argv[2]: initialize, the merged tool list, one call per member
// (each routed by its prefix), a member's sampling request answered by this client, the warning about a member that
// is down, and the session's end. Prints a JSON transcript on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const endpoint = new URL(process.argv[2]);
const transcript = {};
const client = new Client({ name: "mcp-relay-interop-virtual", version: "1.0.0" }, { capabilities: { sampling: {} } });
const sampled = [];
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  sampled.push(request.params.messages[0]?.content?.text ?? "");
  return { role: "assistant", model: "interop-model", content: { type: "text", text: "the client's answer" } };
});
const warnings = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  if (notification.params.level === "warning") {
    warnings.push(String(notification.params.data));
  }
});
const transport = new StreamableHTTPClientTransport(endpoint);
await client.connect(transport);
transcript.initialize = {
  serverName: client.getServerVersion()?.name,
  sessionIdIssued: typeof transport.sessionId === "string" && transport.sessionId.length > 0,
  capabilities: Object.keys(client.getServerCapabilities() ?? {}).sort(),
  instructions: client.getInstructions() ?? "",
};

transcript.tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
transcript.warnings = warnings.slice();
transcript.echo = {};
for (const name of process.argv.slice(3)) {
  const result = await client.callTool({ name, arguments: { message: "to " + name } });
  transcript.echo[name] = result.content?.[0]?.text ?? JSON.stringify(result);
}
const sampling = await client.callTool({
  name: "everything_trigger-sampling-request",
  arguments: { prompt: "what is the relay?", maxTokens: 10 },
});
transcript.sampling = {
  asked: sampled.length,
  result: JSON.stringify(sampling.content ?? []),
};
transcript.unknownTool = await client.callTool({ name: "nobody_echo", arguments: {} })
  .then((result) => ({ isError: result.isError === true }), (error) => ({ code: error?.code }));

await transport.terminateSession();
transcript.sessionTerminated = transport.sessionId === undefined;
try {
  await client.listTools();
  transcript.afterTermination = "still answered";
} catch (error) {
  transcript.afterTermination = String(error?.code ?? error?.message);
}
await client.close();
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(0);
