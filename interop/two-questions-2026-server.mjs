// A 2026-07-28-only MCP server written with the official TypeScript SDK v2 (@modelcontextprotocol/server), as
// only-2026-server.mjs (legacy: 'reject'), whose one tool asks two questions in one round: "two" answers its first call
// with an input_required result holding two elicitations (keys a and b), and its retry with the length of each answer
// it was given. Served over HTTP on 127.0.0.1 (PORT from the environment). Used by the interop suite to keep a round of
// the relay's version bridge waiting with one answer of two.
import { serveFetch } from "./serve-fetch.mjs";
import { createMcpHandler, McpServer, inputRequired } from "@modelcontextprotocol/server";
const schema = { type: "object", properties: { v: { type: "string" } } };
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "two-questions-2026", version: "1.0.0" });
  server.registerTool("two", { description: "asks two questions in one round", inputSchema: {} }, async (_args, ctx) => {
    const given = ctx.mcpReq.inputResponses;
    if (!given) {
      return inputRequired({
        inputRequests: { a: inputRequired.elicit({ message: "a?", requestedSchema: schema }),
          b: inputRequired.elicit({ message: "b?", requestedSchema: schema }) },
        requestState: "asked",
      });
    }
    const sizes = Object.fromEntries(Object.entries(given).map(([key, value]) => [key, JSON.stringify(value).length]));
    return { content: [{ type: "text", text: JSON.stringify(sizes) }] };
  });
  return server;
}, { legacy: "reject" });
serveFetch(handler);
