// Resumption after a dropped GET stream, by a client written with the official TypeScript SDK (Streamable HTTP) at
// process.argv[2]: it asks a server with a "toggle-simulated-logging" tool (interop/resumable-server.mjs, directly or
// as a member of a virtual server) to log to it, and waits for argv[3] (default 3) log messages on its GET stream,
// whatever happens to that stream on the way (the SDK reopens a dropped stream with Last-Event-ID by itself, a second
// later: long enough for messages to be missed and replayed). Prints
// {"received": N, "distinct": N, "disconnects": N, "data": [each message's data, in order]}. With argv[4], a file, each
// message's data is also appended to it as it arrives, one a line, for a test that acts once some have arrived.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { appendFileSync } from "node:fs";

const endpoint = new URL(process.argv[2]);
const wanted = Number(process.argv[3] ?? 3);
const progress = process.argv[4];
const client = new Client({ name: "mcp-relay-interop-resume", version: "1.0.0" }, { capabilities: {} });
const messages = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  messages.push(JSON.stringify(notification.params));
  if (progress) {
    appendFileSync(progress, `${notification.params.data}\n`);
  }
});
const transport = new StreamableHTTPClientTransport(endpoint, {
  reconnectionOptions: { initialReconnectionDelay: 1000, maxReconnectionDelay: 2000, reconnectionDelayGrowFactor: 1.5, maxRetries: 10 },
});
let disconnects = 0;
transport.onerror = (error) => {
  if (String(error?.message).includes("disconnected")) {
    disconnects++;
  }
};
const received = () => new Set(messages).size;
await client.connect(transport);
await client.setLoggingLevel("debug");
await client.callTool({ name: "toggle-simulated-logging", arguments: {} });
const deadline = Date.now() + 45000;
while (messages.length < wanted && Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 100));
}
await client.callTool({ name: "toggle-simulated-logging", arguments: {} });
await transport.terminateSession();
await client.close();
const data = messages.map((message) => JSON.parse(message).data);
process.stdout.write(JSON.stringify({ received: messages.length, distinct: received(), disconnects, data }) + "\n");
process.exit(0);
