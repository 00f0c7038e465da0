// A 2026-07-28 MCP server written with the official TypeScript SDK v2 (@modelcontextprotocol/server), served over
// HTTP on 127.0.0.1 (PORT from the environment) through the SDK's own web-standard handler (createMcpHandler). It
// answers subscriptions/listen as the SDK does: an acknowledgement, then a stream that stays quiet but for a
// keepalive comment every 15 s. Used by the interop suite to check that the relay treats that silence as normal.
import http from "node:http";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "listen-v2", version: "1.0.0" });
  server.registerTool("echo", { description: "echo" }, async () => ({ content: [{ type: "text", text: "hi" }] }));
  return server;
});
http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers, body: ["GET", "HEAD"].includes(req.method) ? undefined : body, signal: controller.signal });
  const response = await handler.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.flushHeaders();
  if (!response.body) { res.end(); return; }
  const reader = response.body.getReader();
  try { for (;;) { const { done, value } = await reader.read(); if (done) break; res.write(value); } } catch {}
  res.end();
}).listen(Number(process.env.PORT), "127.0.0.1");
