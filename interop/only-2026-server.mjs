// A 2026-07-28-only MCP server written with the official TypeScript SDK v2 (@modelcontextprotocol/server): its
// handler refuses every 2025-era request (legacy: 'reject'), as a server that moved to the new generation does. Served
// over HTTP on 127.0.0.1 (PORT from the environment). Tools: echo (returns its text) and add (a + b). Used by the
// interop suite to drive a 2025 client through the relay's version bridge.
import http from "node:http";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod/v4";
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "only-2026", version: "1.0.0" });
  server.registerTool("echo", { description: "echo", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("add", { description: "add", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
  return server;
}, { legacy: "reject" });
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
