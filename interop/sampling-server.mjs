// A Streamable HTTP MCP server written with the official TypeScript SDK, on 127.0.0.1 (PORT from the environment),
// whose tool asks the client for a completion with sampling/createMessage on the session's standalone GET stream
// (and another asks the user for input with elicitation/create, the same way):
// a server request tied to no client request, as the SDK sends it when the request names no related request. The
// tool answers with what the client's model said. Used by the interop suite to check that the relay loses no
// server-to-client request (the client opens its GET stream and calls the tool at once, so the order in which the
// two reach the server decides whether the request has a stream to go out on).
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

const transports = new Map();

function newSession() {
  const server = new McpServer({ name: "sampling-on-get-stream", version: "1.0.0" });
  server.registerTool("ask-model", { description: "Asks the client's model, over the standalone GET stream" }, async () => {
    const answer = await server.server.createMessage({
      messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
      maxTokens: 16,
    });
    return { content: [{ type: "text", text: `model said: ${answer.content.text}` }] };
  });
  server.registerTool("ask-user", { description: "Asks the user for an email address, over the standalone GET stream" }, async () => {
    const answer = await server.server.elicitInput({
      message: "Which email address should receive the report?",
      requestedSchema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
    });
    return { content: [{ type: "text", text: `user said: ${answer.action} ${answer.content?.email ?? ""}` }] };
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => transports.set(id, transport),
    onsessionclosed: (id) => transports.delete(id),
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
