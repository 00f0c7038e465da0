// A client written with the official TypeScript SDK v2 (@modelcontextprotocol/client) that negotiates MCP 2026-07-28
// with the endpoint in argv[2], opens a subscriptions/listen subscription, and reports how it ended within argv[3] ms:
// 'graceful' (the subscription's complete result), 'remote' (the stream ended without one), or 'open'. With argv[4], it
// writes that file once the subscription is acknowledged, so that a test can act on an acknowledged subscription.
import { writeFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
const endpoint = new URL(process.argv[2]);
const waitMs = Number(process.argv[3] ?? 3000);
const client = new Client({ name: "mcp-relay-interop-listen", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
await client.connect(new StreamableHTTPClientTransport(endpoint));
const subscription = await client.listen({ toolsListChanged: true });
if (process.argv[4]) {
  writeFileSync(process.argv[4], "acknowledged\n");
}
const started = Date.now();
const closed = await Promise.race([subscription.closed, new Promise((resolve) => setTimeout(() => resolve("open"), waitMs))]);
process.stdout.write(JSON.stringify({ honoredFilter: subscription.honoredFilter, closed, afterMs: Date.now() - started }) + "\n");
process.exit(0);
