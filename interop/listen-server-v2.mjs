// A 2026-07-28 MCP server written with the official TypeScript SDK v2 (@modelcontextprotocol/server), served over
// HTTP on 127.0.0.1 (PORT from the environment) through the SDK's own web-standard handler (createMcpHandler). It
// answers subscriptions/listen as the SDK does: an acknowledgement, then a stream that stays quiet but for a
// keepalive comment every 15 s. Used by the interop suite to check that the relay treats that silence as normal.
import { serveFetch } from "./serve-fetch.mjs";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "listen-v2", version: "1.0.0" });
  server.registerTool("echo", { description: "echo" }, async () => ({ content: [{ type: "text", text: "hi" }] }));
  return server;
});
serveFetch(handler);
