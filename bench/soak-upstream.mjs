// The soak's upstream: a real MCP server written with the official TypeScript SDK (interop/node_modules, installed by
// bench/soak.sh with `npm ci` when missing), stateful (one session per initialize, ended by DELETE), on
// 127.0.0.1:$PORT, at two endpoints that differ only in how they answer a POST:
//   /json/mcp  enableJsonResponse: every answer is one JSON body;
//   /sse/mcp   every answer is an SSE stream (progress notifications, then the result).
// Tools (both endpoints): echo {message} -> the message; countdown {from, intervalMs} -> one notifications/progress
// per step (when the call carries a progressToken) every intervalMs, then "liftoff"; secret -> "should never be
// reached" (the soak's relay denies it: a call that arrives here is counted, and the driver reports it as an error).
// Every session's standalone GET stream gets a notifications/message every TICK_MS (default 500) while it is open.
// GET /stats (not MCP) answers {"sessions": n, "getStreams": n, "secretCalls": n, ...}: what the upstream holds now.
import http from "node:http";
import { randomUUID } from "node:crypto";

const sdk = (path) => import(new URL(`../interop/node_modules/@modelcontextprotocol/sdk/dist/esm/${path}`, import.meta.url));
const { Server } = await sdk("server/index.js");
const { StreamableHTTPServerTransport } = await sdk("server/streamableHttp.js");
const { CallToolRequestSchema, ListToolsRequestSchema } = await sdk("types.js");

const port = Number(process.env.PORT ?? 3201);
const tickMs = Number(process.env.TICK_MS ?? 500);
const transports = new Map(); // session id -> transport
const stats = { sessionsOpened: 0, sessionsClosed: 0, getStreams: 0, secretCalls: 0, calls: 0 };

const TOOLS = [
  { name: "echo", description: "Answers with its message", inputSchema: { type: "object", properties: { message: { type: "string" } } } },
  {
    name: "countdown",
    description: "Counts down from `from`, one progress notification every intervalMs, then answers",
    inputSchema: { type: "object", properties: { from: { type: "number" }, intervalMs: { type: "number" } } },
  },
  { name: "secret", description: "Denied by the relay", inputSchema: { type: "object" } },
];

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });

function newSession(json) {
  const server = new Server({ name: json ? "soak-json" : "soak-sse", version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    stats.calls++;
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case "echo":
        return { content: [{ type: "text", text: String(args.message ?? "") }] };
      case "countdown": {
        const from = Math.min(Number(args.from ?? 5), 50);
        const interval = Math.min(Number(args.intervalMs ?? 200), 2000);
        const token = request.params._meta?.progressToken;
        for (let i = 1; i <= from && !extra.signal.aborted; i++) {
          await sleep(interval, extra.signal);
          if (token !== undefined && !extra.signal.aborted) {
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: i, total: from, message: `${from - i} left` },
            }).catch(() => {});
          }
        }
        return { content: [{ type: "text", text: "liftoff" }] };
      }
      case "secret":
        stats.secretCalls++;
        return { content: [{ type: "text", text: "should never be reached" }] };
      default:
        return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
    }
  });
  let ticks = 0;
  let ticker; // started once the session exists: a POST without a session that is no initialize leaves nothing behind
  let closed = false;
  const close = (id) => {
    if (closed) return;
    closed = true;
    clearInterval(ticker);
    if (id) transports.delete(id);
    stats.sessionsClosed++;
  };
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: json,
    onsessioninitialized: (id) => {
      transports.set(id, transport);
      stats.sessionsOpened++;
      ticker = setInterval(() => {
        ticks++;
        server.notification({ method: "notifications/message", params: { level: "info", data: `tick ${ticks}` } }).catch(() => {});
      }, tickMs);
    },
    onsessionclosed: (id) => close(id),
  });
  transport.onclose = () => close(transport.sessionId);
  server.connect(transport);
  return transport;
}

http
  .createServer(async (req, res) => {
    const path = req.url.split("?")[0];
    if (path === "/stats") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ sessions: transports.size, ...stats }));
      return;
    }
    if (path !== "/json/mcp" && path !== "/sse/mcp") {
      res.writeHead(404).end();
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    const transport = sessionId ? transports.get(sessionId) : req.method === "POST" ? newSession(path === "/json/mcp") : undefined;
    if (!transport) {
      res.writeHead(404, { "content-type": "application/json" }).end(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }),
      );
      return;
    }
    if (req.method === "GET") {
      stats.getStreams++;
    }
    try {
      await transport.handleRequest(req, res);
    } catch (error) {
      console.error(`upstream: ${error?.stack ?? error}`);
      if (!res.headersSent) res.writeHead(500).end();
    }
  })
  .listen(port, "127.0.0.1", () => console.error(`soak upstream on 127.0.0.1:${port}`));
