// A 2026-07-28-only MCP server written with the official TypeScript SDK v2 (@modelcontextprotocol/server): its
// handler refuses every 2025-era request (legacy: 'reject'), as a server that moved to the new generation does. Served
// over HTTP on 127.0.0.1 (PORT from the environment). Tools: echo (returns its text) and add (a + b); and two that ask
// the client for input in the 2026 way (an input_required result, answered by a retry with inputResponses and the
// requestState it gave): confirm (round 1 elicits a yes, round 2 asks for a sampled summary, then answers with what
// both rounds got and whether each retry brought back the round's requestState untouched) and roots (lists the
// client's roots); and insist, which asks again whatever the answer. Used by the interop suite to drive a 2025 client through the relay's version bridge.
import { serveFetch } from "./serve-fetch.mjs";
import { createMcpHandler, McpServer, inputRequired, inputResponse } from "@modelcontextprotocol/server";
import * as z from "zod/v4";
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "only-2026", version: "1.0.0" });
  server.registerTool("echo", { description: "echo", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("add", { description: "add", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
  server.registerTool("confirm", { description: "asks for a confirmation, then a summary", inputSchema: { action: z.string() } },
    async ({ action }, ctx) => {
      const state = ctx.mcpReq.requestState();
      if (state === undefined) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Really ${action}?`,
            requestedSchema: { type: "object", properties: { yes: { type: "boolean" } }, required: ["yes"] } }) },
          requestState: `asked-confirm:${action}:\u00e9=?`,
        });
      }
      if (state.startsWith("asked-confirm:")) {
        const confirmed = inputResponse(ctx.mcpReq.inputResponses, "confirm");
        const yes = confirmed.kind === "elicit" && confirmed.action === "accept" && confirmed.content?.yes === true;
        return inputRequired({
          inputRequests: { summary: inputRequired.createMessage({ maxTokens: 20,
            messages: [{ role: "user", content: { type: "text", text: `Summarize ${action}` } }] }) },
          requestState: `asked-summary:${yes}:${state === `asked-confirm:${action}:\u00e9=?`}`,
        });
      }
      const summary = inputResponse(ctx.mcpReq.inputResponses, "summary");
      const text = summary.kind === "sampling" ? summary.result.content?.text : `no summary (${summary.kind})`;
      const [, yes, stateKept] = state.split(":");
      return { content: [{ type: "text", text: `${action}: confirmed=${yes}, summary=${text}, state kept=${stateKept}` }] };
    });
  server.registerTool("insist", { description: "asks for a confirmation again whatever the answer", inputSchema: {} },
    async (_args, ctx) => inputRequired({
      inputRequests: { again: inputRequired.elicit({ message: "Once more?",
        requestedSchema: { type: "object", properties: { yes: { type: "boolean" } }, required: ["yes"] } }) },
      requestState: String(Number(ctx.mcpReq.requestState() ?? "0") + 1),
    }));
  server.registerTool("roots", { description: "lists the client's roots", inputSchema: {} },
    async (_args, ctx) => {
      const roots = inputResponse(ctx.mcpReq.inputResponses, "roots");
      if (roots.kind !== "roots") {
        return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      }
      return { content: [{ type: "text", text: roots.roots.map((root) => root.uri).join(",") }] };
    });
  return server;
}, { legacy: "reject" });
serveFetch(handler);
