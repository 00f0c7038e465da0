// A client written with the official TypeScript SDK v2 (@modelcontextprotocol/client) that negotiates MCP 2026-07-28
// with a virtual server of mcp-relay at argv[2] (no session: each request carries what it needs): discovery, the
// merged tool list, a call through each prefix in argv[3..], and a subscriptions/listen subscription held for a
// moment. Prints a JSON transcript on stdout.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const endpoint = new URL(process.argv[2]);
const client = new Client({ name: "mcp-relay-interop-v2", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
await client.connect(new StreamableHTTPClientTransport(endpoint));
const transcript = {};
transcript.serverName = client.getServerVersion()?.name ?? null;
transcript.tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
transcript.calls = {};
for (const name of process.argv.slice(3)) {
  const result = await client.callTool({ name, arguments: {} });
  transcript.calls[name] = result.content?.[0]?.text ?? JSON.stringify(result);
}
transcript.unknown = await client.callTool({ name: "nobody_echo", arguments: {} })
  .then((result) => ({ isError: result.isError === true }), (error) => ({ code: error?.code ?? String(error?.message) }));
const subscription = await client.listen({ toolsListChanged: true });
transcript.listenHonored = subscription.honoredFilter ?? null;
const closed = await Promise.race([subscription.closed, new Promise((resolve) => setTimeout(() => resolve("open"), 1000))]);
transcript.listenAfterOneSecond = closed;
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(0);
