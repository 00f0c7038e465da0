// A client written with the official TypeScript SDK v2 (@modelcontextprotocol/client) pinned to MCP 2026-07-28 that
// listens (subscriptions/listen) to the endpoint at argv[2] for tool and prompt list changes, writes the file argv[4]
// once the subscription is acknowledged (so that a test can then change the server's tools), and waits at most argv[3]
// ms for a tools/list_changed notification. Prints a JSON transcript: the honoured filter, the notifications it got,
// and the tools it then lists.
import { writeFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const endpoint = new URL(process.argv[2]);
const waitMs = Number(process.argv[3] ?? 10000);
const client = new Client({ name: "mcp-relay-bridge-listen-v2", version: "1.0.0" },
  { versionNegotiation: { mode: { pin: "2026-07-28" } } });
await client.connect(new StreamableHTTPClientTransport(endpoint));
const notified = [];
let changed;
const toolsChanged = new Promise((resolve) => { changed = resolve; });
client.setNotificationHandler("notifications/tools/list_changed", (notification) => {
  notified.push(notification.method);
  changed("changed");
});
const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
if (process.argv[4]) {
  writeFileSync(process.argv[4], "acknowledged\n");
}
const outcome = await Promise.race([toolsChanged, subscription.closed,
  new Promise((resolve) => setTimeout(() => resolve("timeout"), waitMs))]);
const transcript = { honoredFilter: subscription.honoredFilter, outcome, notified };
transcript.tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
await subscription.close();
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(0);
