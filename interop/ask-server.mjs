// A 2025-only MCP server of the TypeScript SDK 1.x (stateful Streamable HTTP, one McpServer per session) for the
// version bridge's tests (direction 2: a 2026-07-28 client through the relay). Tools: "echo"; "ask" elicits once on
// the call's own stream; "slow" runs until its request is cancelled (or SLOW_MS, default one hour). Resources announce
// `subscribe`: a subscribe of a URI starting "hold:" is never answered (until the relay gives it up), others are.
// GET /change registers a tool in every session (each session's GET stream hears tools/list_changed); GET /stats: the
// sessions, what the server saw (the notifications/cancelled it got, the tool each request id called, the
// subscribes and unsubscribes by URI, the outcomes of "slow" and "ask", the initializes and DELETEs it got). An
// unknown session id is answered 404. GET404=1 in the environment: every GET is answered 404 text/html, as a server
// that routes only POST answers it.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ElicitResultSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";

const SLOW_MS = Number(process.env.SLOW_MS ?? 3600000);
const ELICIT = { method: "elicitation/create", params: { message: "ok?", requestedSchema: { type: "object", properties: { yes: { type: "boolean" } } } } };
const transports = new Map();
const servers = new Set();
const stats = { initializes: 0, deletes: 0, slowStarted: 0, slow: [], ask: [], cancelled: [], calls: {}, subscribes: [], unsubscribes: [], gets: [] };
let changes = 0;

function newSession() {
  const server = new McpServer({ name: "ask-2025", version: "1.0.0" }, { capabilities: { resources: { subscribe: true } } });
  servers.add(server);
  server.registerTool("echo", { description: "echo", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("ask", { description: "elicits once" }, async (extra) => {
    extra.signal.addEventListener("abort", () => stats.ask.push("cancelled"));
    const answer = await extra.sendRequest(ELICIT, ElicitResultSchema);
    stats.ask.push("answered");
    return { content: [{ type: "text", text: "answered " + JSON.stringify(answer) }] };
  });
  server.registerTool("slow", { description: "runs until cancelled" }, async (extra) => {
    stats.slowStarted++;
    const outcome = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve("completed"), SLOW_MS);
      extra.signal.addEventListener("abort", () => { clearTimeout(timer); resolve("cancelled"); });
    });
    stats.slow.push(outcome);
    return { content: [{ type: "text", text: outcome }] };
  });
  server.registerResource("memo", "memo://one", { description: "a memo" }, async (uri) => ({ contents: [{ uri: uri.href, text: "memo" }] }));
  server.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    stats.subscribes.push(request.params.uri);
    if (request.params.uri.startsWith("hold:")) {
      await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
    }
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    stats.unsubscribes.push(request.params.uri);
    return {};
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => transports.set(id, transport),
    onsessionclosed: (id) => transports.delete(id),
  });
  server.connect(transport);
  return transport;
}

async function bodyOf(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

http.createServer(async (req, res) => {
  if (req.url === "/change") {
    changes++;
    for (const server of servers) {
      try { server.registerTool("t" + changes, { description: "new" }, async () => ({ content: [] })); } catch {}
    }
    res.writeHead(200).end("ok");
    return;
  }
  if (req.url === "/stats") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ sessions: transports.size, ...stats }));
    return;
  }
  const sessionId = req.headers["mcp-session-id"];
  if (req.method === "GET") stats.gets.push(sessionId ?? "-");
  if (req.method === "DELETE") stats.deletes++;
  // GET404 (from the environment): every GET answered as a server that routes only POST does (Express: "Cannot GET")
  if (process.env.GET404 && req.method === "GET") {
    res.writeHead(404, { "content-type": "text/html" }).end("Cannot GET /mcp");
    return;
  }
  const transport = sessionId ? transports.get(sessionId) : newSession();
  if (!transport) {
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
    return;
  }
  let body;
  if (req.method === "POST") {
    body = await bodyOf(req);
    for (const message of Array.isArray(body) ? body : [body]) {
      if (message?.method === "notifications/cancelled") stats.cancelled.push(message.params?.requestId);
      if (message?.method === "tools/call") stats.calls[message.id] = message.params?.name;
      if (message?.method === "initialize") stats.initializes++;
    }
  }
  await transport.handleRequest(req, res, body);
}).listen(Number(process.env.PORT), "127.0.0.1");
