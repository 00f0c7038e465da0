// Tool search through mcp-relay, seen by a client written with the official TypeScript SDK (Streamable HTTP) at
// process.argv[2]: list (the search tool and the pinned ones), search, the tools/list_changed notification before the
// search's result on the same stream, list again (the found tools), and call one. Prints a JSON transcript.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const client = new Client({ name: "mcp-relay-interop", version: "1.0.0" }, { capabilities: {} });
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
const order = [];
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  order.push("tools/list_changed");
});
await client.connect(transport);

const transcript = {};
transcript.before = (await client.listTools()).tools.map((tool) => tool.name);
order.length = 0;
const found = await client.callTool({ name: "search_available_tools", arguments: { query: "add two numbers" } });
order.push("result");
transcript.order = order.slice();
transcript.found = found.structuredContent?.tools?.map((tool) => tool.name) ?? [];
transcript.summary = found.content?.[0]?.text ?? "";
transcript.after = (await client.listTools()).tools.map((tool) => tool.name);
transcript.sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
transcript.notFound = await client.callTool({ name: "get-env", arguments: {} })
  .then((result) => ({ isError: result.isError === true }), (error) => ({ code: error?.code }));

await client.close();
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(0);
