// An MCP server of both generations, written with the official TypeScript SDK v2 (@modelcontextprotocol/server) on
// createMcpHandler's default: it answers MCP 2026-07-28 requests, and serves session-era clients statelessly (their
// initialize and requests, no session). Served over HTTP on 127.0.0.1 (PORT from the environment). Tools: echo
// (returns its text) and ask, which elicits a yes in the 2026 way (an input_required result): a client that declared
// no elicitation capability is refused with the new generation's -32021.
// GET /initializes tells how many initialize requests it took.
import "./loopback.mjs";
import { serveFetch } from "./serve-fetch.mjs";
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
serveFetch(handler, (req, res, body) => {
  if (req.url === "/initializes") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ initializes }));
    return true;
  }
  if (body.includes('"initialize"')) {
    initializes++;
  }
  return false;
});
