// A 2025-era client written with the official TypeScript SDK v1 (@modelcontextprotocol/sdk 1.32.2) that answers a
// server's requests for input the 2025 way (server-to-client requests in its session): elicitation (accepts, yes),
// sampling (a fixed summary) and roots (one root). Against argv[2], as argv[3] says:
// - answer: calls confirm (an elicitation, then a sampling), roots and insist (which asks forever), and prints what
//   came back;
// - silent: its elicitation handler never answers; calls confirm and prints the error it gets;
// - refuse: its elicitation handler fails (the client answers with a JSON-RPC error); calls confirm, prints the error;
// - cancel: its elicitation handler never answers; once asked, it cancels the call (notifications/cancelled), then
//   calls add in the same session, and leaves the session open.
// Prints a JSON transcript on stdout (with the methods it was asked, in order); a step that fails is recorded with its
// error, never thrown.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const mode = process.argv[3] ?? "answer";
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
const client = new Client({ name: "mcp-relay-interop-input-v1", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } });
const transcript = { asked: [] };
const failure = (error) => ({ error: { code: error?.code ?? null, message: String(error?.message ?? error),
  reason: error?.data?.reason ?? null } });
let askedToConfirm;
const confirmAsked = new Promise((resolve) => { askedToConfirm = resolve; });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  transcript.asked.push(request.method);
  askedToConfirm();
  if (mode === "refuse") {
    throw new Error("the user closed the dialog");
  }
  if (mode !== "answer") {
    return new Promise(() => {});
  }
  return { action: "accept", content: { yes: true } };
});
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  transcript.asked.push(request.method);
  return { role: "assistant", content: { type: "text", text: "all good" }, model: "interop" };
});
client.setRequestHandler(ListRootsRequestSchema, async (request) => {
  transcript.asked.push(request.method);
  return { roots: [{ uri: "file:///work", name: "work" }] };
});
const text = (result) => result.content?.[0]?.text ?? JSON.stringify(result);
try {
  await client.connect(transport);
  if (mode === "answer") {
    transcript.confirm = await client.callTool({ name: "confirm", arguments: { action: "deploy" } }).then(text, failure);
    transcript.roots = await client.callTool({ name: "roots", arguments: {} }).then(text, failure);
    transcript.insist = await client.callTool({ name: "insist", arguments: {} }).then(text, failure);
  } else if (mode === "silent" || mode === "refuse") {
    transcript.confirm = await client.callTool({ name: "confirm", arguments: { action: "deploy" } },
      undefined, { timeout: 120000 }).then(text, failure);
  } else {
    const controller = new AbortController();
    const call = client.callTool({ name: "confirm", arguments: { action: "deploy" } }, undefined,
      { signal: controller.signal, timeout: 120000 }).then(text, failure);
    await confirmAsked;
    controller.abort("the user went away");
    transcript.confirm = await call;
    transcript.add = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }).then(text, failure);
  }
  if (mode !== "cancel") {
    // (cancel keeps its session open: what ended the round must be the cancellation, not the session's end)
    await transport.terminateSession();
  }
} catch (error) {
  transcript.failed = failure(error);
}
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(0);
