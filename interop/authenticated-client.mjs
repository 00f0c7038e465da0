// A TypeScript SDK client that authenticates to the relay with a header (argv[3], "Name: value"; none when absent):
// connect, list the tools, call echo. Prints {"connected": true, "tools": N, "echo": text} on stdout, or
// {"connected": false, "status": HTTP status, "message": ...} when the relay refused it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const endpoint = new URL(process.argv[2]);
const headers = {};
if (process.argv[3]) {
  const colon = process.argv[3].indexOf(":");
  headers[process.argv[3].slice(0, colon).trim()] = process.argv[3].slice(colon + 1).trim();
}
const client = new Client({ name: "mcp-relay-interop-auth", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } });
try {
  await client.connect(transport);
  const tools = await client.listTools();
  const echo = await client.callTool({ name: "echo", arguments: { message: "through the front door" } });
  console.log(JSON.stringify({ connected: true, tools: tools.tools.length, echo: echo.content?.[0]?.text }));
  await transport.terminateSession().catch(() => {});
  await client.close();
} catch (error) {
  console.log(JSON.stringify({ connected: false, status: error?.code ?? null, message: String(error?.message ?? error) }));
}
