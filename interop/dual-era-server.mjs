// An MCP server of both generations, written with the official TypeScript SDK v2 (@modelcontextprotocol/server) on
// createMcpHandler's default: it answers MCP 2026-07-28 requests, and serves session-era clients statelessly (their
// initialize and requests, no session). Served over HTTP on 127.0.0.1 (PORT from the environment). Tools: echo
// (returns its text) and ask, which elicits a yes in the 2026 way (an input_required result): a client that declared
// no elicitation capability is refused with the new generation's -32021.
// GET /initializes tells how many initialize requests it took.
import "./loopback.mjs";
import http from "node:http";
import { createMcpHandler, McpServer, inputRequired, inputResponse } from "@modelcontextprotocol/server";
import * as z from "zod/v4";
let initializes = 0;
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "dual-era", version: "1.0.0" });
  server.registerTool("echo", { description: "echo", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("ask", { description: "elicits a yes", inputSchema: {} }, async (_args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "q");
    if (answer.kind !== "elicit") {
      return inputRequired({ inputRequests: { q: inputRequired.elicit({ message: "ok?",
        requestedSchema: { type: "object", properties: { yes: { type: "boolean" } } } }) } });
    }
    return { content: [{ type: "text", text: "answered " + JSON.stringify(answer.content) }] };
  });
  return server;
});
http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  if (req.url === "/initializes") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ initializes }));
    return;
  }
  if (body.includes('"initialize"')) {
    initializes++;
  }
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
