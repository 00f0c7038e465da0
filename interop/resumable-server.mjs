// A Streamable HTTP MCP server written with the official TypeScript SDK, on 127.0.0.1 (PORT from the environment),
// that keeps every event it sends, so that a client's dropped GET stream resumes with Last-Event-ID where it stopped. Its tool "toggle-simulated-logging" starts (or stops) a log message to the
// session every 300 ms, numbered, on the session's GET stream. Used by the interop suite to check resumption through
// the relay.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

// An event store that resumes every stream, the standalone GET stream included. (The SDK's example store finds a
// stream by the text before the first "_" of an event id, which is empty for the GET stream's "_GET_stream"; the
// reference server's returns an event id where the SDK expects a stream id: neither resumes a GET stream.)
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

function newSession() {
  const server = new McpServer({ name: "resumable", version: "1.0.0" }, { capabilities: { logging: {} } });
  let ticker;
  let count = 0;
  server.registerTool("toggle-simulated-logging", { description: "Logs a numbered message every 300 ms, or stops" }, async () => {
    if (ticker) {
      clearInterval(ticker);
      ticker = undefined;
    } else {
      ticker = setInterval(() => {
        count++;
        server.sendLoggingMessage({ level: "info", data: `tick ${count}` }).catch(() => {});
      }, 300);
    }
    return { content: [{ type: "text", text: ticker ? "logging" : "stopped" }] };
  });
  // A long call: a progress notification every 300 ms on the call's own stream (kept by the event store, so a client
  // whose stream dropped resumes it with Last-Event-ID), then its result, "counted <steps>".
  server.registerTool("count-slowly", { description: "Counts to steps, a progress notification each 300 ms",
    inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    for (let step = 1; step <= steps; step++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: steps } });
      }
    }
    return { content: [{ type: "text", text: `counted ${steps}` }] };
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore: new EventStore(),
    onsessioninitialized: (id) => transports.set(id, transport),
    onsessionclosed: (id) => {
      transports.delete(id);
      clearInterval(ticker);
    },
  });
  server.connect(transport);
  return transport;
}

http
  .createServer(async (req, res) => {
    const sessionId = req.headers["mcp-session-id"];
    const transport = sessionId ? transports.get(sessionId) : newSession();
    if (!transport) {
      res.writeHead(404, { "content-type": "application/json" }).end(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }),
      );
      return;
    }
    await transport.handleRequest(req, res);
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
