// A 2025-era client written with the official TypeScript SDK v1 (@modelcontextprotocol/sdk 1.32.2), which speaks only
// session-era MCP (initialize, Mcp-Session-Id): against argv[2], it connects, lists the tools, calls add and echo
// (a text with a non-ASCII letter), ends its session (DELETE) and tries one more call in it. Prints a JSON transcript
// on stdout; a step that fails is recorded with its error, never thrown.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
const client = new Client({ name: "mcp-relay-interop-v1", version: "1.0.0" }, { capabilities: { roots: {} } });
const transcript = {};
const failure = (error) => ({ error: error?.code ?? String(error?.message ?? error) });
try {
  await client.connect(transport);
  transcript.connected = true;
  transcript.serverName = client.getServerVersion()?.name ?? null;
  transcript.protocolVersion = transport.protocolVersion ?? null;
  transcript.hasSession = typeof transport.sessionId === "string" && transport.sessionId.length > 0;
  transcript.tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
  transcript.add = (await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })).content?.[0]?.text ?? null;
  transcript.echo = (await client.callTool({ name: "echo", arguments: { text: "héllo" } })).content?.[0]?.text ?? null;
  transcript.unknownTool = await client.callTool({ name: "nothing", arguments: {} })
    .then((result) => ({ isError: result.isError === true }), failure);
  await transport.terminateSession();
  transcript.terminated = transport.sessionId === undefined;
  transcript.afterTermination = await client.listTools().then(() => "answered", failure);
} catch (error) {
  transcript.failed = failure(error);
}
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(0);
