// A Streamable HTTP MCP server written with the official TypeScript SDK, on 127.0.0.1 (PORT from the environment),
// as a member of a virtual server in the interop suite's tests of what members do under failure:
// - tool "echo" answers its message; "ask-model" asks the client for a completion with sampling/createMessage on the
//   session's standalone GET stream (a server request tied to no client request) and answers with what it said;
// - tool "tick" starts sending numbered log messages on the standalone GET stream ("<label> <n>", `perTick` of them
//   every `intervalMs`, up to `total`), kept in an event store so that a GET with Last-Event-ID resumes after it
//   (the same store as resumable-server.mjs: the SDK's example stores do not resume the standalone stream);
// - RESOURCES resources (environment, default none) "member://<RESOURCE_PREFIX>/<n>", each with a 200-character
//   description: a list large enough that what a relay keeps of it shows in its heap.
// The environment shapes the failures: GET_DELAY_MS holds each GET that long before the SDK sees it (a member that
// opens its stream late); FIRST_GET_AFTER_ASK=1 holds the first GET it gets, past GET_DELAY_MS, until "ask-model" has
// sent (or dropped) its request (a member whose stream opens only after the call that went ahead of it, whatever the
// load: without it, a call that reaches the server later than GET_DELAY_MS after the GET finds the stream open);
// UNKNOWN_SESSION=400 answers a request with a session id it does not know (it restarted) as
// the SDK's older examples do, 400 "Bad Request: No valid session ID provided", instead of the SDK's 404;
// EVENT_STORE=none keeps no events (its events carry no ids, and what it sends with no stream open is dropped).
// GET /stats answers how many sessions it opened and holds, how many GET streams are open now, and how many sampling
// requests "ask-model" sent (or dropped, with no stream to send them on).
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const getDelayMs = Number(process.env.GET_DELAY_MS ?? 0);
let firstGetHeld = process.env.FIRST_GET_AFTER_ASK === "1";
let askDone;
const asking = new Promise((resolve) => { askDone = resolve; });
const unknownSession = process.env.UNKNOWN_SESSION ?? "404";
const resourceCount = Number(process.env.RESOURCES ?? 0);
const resourcePrefix = process.env.RESOURCE_PREFIX ?? "resource";
const keepsEvents = process.env.EVENT_STORE !== "none";

class EventStore {
  events = [];

  async storeEvent(streamId, message) {
    const eventId = `${streamId}~${this.events.length}`;
    this.events.push({ eventId, streamId, message });
    return eventId;
  }

  async replayEventsAfter(lastEventId, { send }) {
    const at = this.events.findIndex((event) => event.eventId === lastEventId);
    if (at < 0) {
      return "";
    }
    const streamId = this.events[at].streamId;
    for (const event of this.events.slice(at + 1)) {
      if (event.streamId === streamId) {
        await send(event.eventId, event.message);
      }
    }
    return streamId;
  }
}

const transports = new Map();
let sessionsOpened = 0;
let streamsOpen = 0;
let asked = 0;

function newSession() {
  const server = new McpServer({ name: "member", version: "1.0.0" }, { capabilities: { logging: {} } });
  const tickers = [];
  server.registerTool("echo", { description: "Answers its message", inputSchema: { message: z.string().optional() } },
    async ({ message }) => ({ content: [{ type: "text", text: String(message ?? "") }] }));
  server.registerTool("ask-model", { description: "Asks the client's model, over the standalone GET stream" }, async () => {
    const answering = server.server.createMessage({
      messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
      maxTokens: 16,
    });
    asked++; // the SDK has it: it is written (or dropped, with no stream) before a later /stats can answer
    setImmediate(askDone); // once the SDK's send has settled (its microtasks ran): a held GET may go on
    const answer = await answering;
    return { content: [{ type: "text", text: `model said: ${answer.content.text}` }] };
  });
  server.registerTool("tick", {
    description: "Sends numbered log messages on the standalone GET stream",
    inputSchema: { label: z.string(), perTick: z.number(), intervalMs: z.number(), total: z.number() },
  }, async ({ label, perTick, intervalMs, total }) => {
    let sent = 0;
    const ticker = setInterval(() => {
      for (let i = 0; i < perTick && sent < total; i++) {
        sent++;
        server.server.notification({ method: "notifications/message", params: { level: "info", data: `${label} ${sent}` } })
          .catch(() => {});
      }
      if (sent >= total) {
        clearInterval(ticker);
      }
    }, intervalMs);
    tickers.push(ticker);
    return { content: [{ type: "text", text: "ticking" }] };
  });
  for (let n = 1; n <= resourceCount; n++) {
    const uri = `member://${resourcePrefix}/${n}`;
    server.registerResource(`resource-${n}`, uri, { mimeType: "text/plain", description: "x".repeat(200) },
      async () => ({ contents: [{ uri, text: `resource ${n}` }] }));
  }
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore: keepsEvents ? new EventStore() : undefined,
    onsessioninitialized: (id) => {
      sessionsOpened++;
      transports.set(id, transport);
    },
    onsessionclosed: (id) => {
      transports.delete(id);
      tickers.forEach(clearInterval);
    },
  });
  server.connect(transport);
  return transport;
}

http
  .createServer(async (req, res) => {
    if (req.url === "/stats") {
      res.writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ sessionsOpened, sessionsOpen: transports.size, streamsOpen, asked }));
      return;
    }
    if (req.method === "GET") {
      streamsOpen++;
      res.on("close", () => streamsOpen--);
    }
    if (req.method === "GET" && getDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, getDelayMs));
    }
    if (req.method === "GET" && firstGetHeld) {
      firstGetHeld = false;
      await asking;
    }
    const sessionId = req.headers["mcp-session-id"];
    const transport = sessionId ? transports.get(sessionId) : newSession();
    if (!transport) {
      const [status, code, message] = unknownSession === "400"
        ? [400, -32000, "Bad Request: No valid session ID provided"]
        : [404, -32001, "Session not found"];
      res.writeHead(status, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
      return;
    }
    await transport.handleRequest(req, res);
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
