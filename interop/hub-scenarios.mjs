// The scenarios for mcp-hub (a hub of MCP servers that speaks the legacy HTTP+SSE transport), run by a client
// written with the official TypeScript SDK against one endpoint (process.argv[2]), over Streamable HTTP, or over the
// legacy transport when process.argv[3] is "sse". mcp-hub names each server's tools, prompts and resources
// "<server>__<name>"; it serves the reference server as "everything". Prints one JSON transcript on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

const endpoint = new URL(process.argv[2]);
const legacySse = process.argv[3] === "sse";
const transport = legacySse ? new SSEClientTransport(endpoint) : new StreamableHTTPClientTransport(endpoint);
const client = new Client({ name: "mcp-relay-interop", version: "1.0.0" }, { capabilities: {} });
const transcript = {};

await client.connect(transport);
transcript.serverName = client.getServerVersion()?.name;
transcript.capabilities = Object.keys(client.getServerCapabilities() ?? {}).sort();
// mcp-hub lists its servers' capabilities once they connected; wait for the reference server's tools.
let tools = [];
for (let tries = 0; tries < 100 && !tools.some((name) => name.endsWith("__echo")); tries++) {
  tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
  if (!tools.some((name) => name.endsWith("__echo"))) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
transcript.tools = tools;
transcript.echo = await client.callTool({ name: "everything__echo", arguments: { message: "through the hub ✓" } });
transcript.sum = await client.callTool({ name: "everything__get-sum", arguments: { a: 20, b: 22 } });
transcript.prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name).sort();
transcript.simplePrompt = await client.getPrompt({ name: "everything__simple-prompt" });
transcript.unknownTool = await client.callTool({ name: "everything__no-such-tool", arguments: {} })
  .then((result) => ({ isError: result.isError === true }), (error) => ({ code: error?.code }));

await client.close();
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(0);
