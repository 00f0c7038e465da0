// The server the official MCP conformance suite (@modelcontextprotocol/conformance, its "server" scenarios) expects:
// the tools, resources and prompts its scenarios name (test_simple_text, test://static-text, test_simple_prompt, ...),
// written with the official TypeScript SDK v2 (@modelcontextprotocol/server) and defined once for both generations.
// ERA (from the environment) says which generations it serves, on 127.0.0.1 at PORT:
//   2025: only 2025-11-25 and older: sessions (initialize, Mcp-Session-Id, GET stream, DELETE) through the SDK's
//         WebStandardStreamableHTTPServerTransport; a 2026 request is refused as a session-era server refuses it.
//   2026: only 2026-07-28, through createMcpHandler with legacy: 'reject' (every 2025 request refused).
//   both (the default): each request by the generation it claims, as the SDK's own classification routes it.
// Tools that need the client's input are written once in the 2026 way (an input_required result, retried with the
// answers); a 2025 session gets them as real server requests (the SDK's legacy shim sends them on the call's stream).
// Every request whose Host or Origin is not the loopback is refused with 403 (the suite's dns-rebinding scenario).
// Used by relay/src/test/java/dev/mcprelay/interop/ConformanceSuiteInteropTest.java, which runs the suite against it
// directly and through the relay.
import "./loopback.mjs";
import { randomUUID } from "node:crypto";
import { serveFetch } from "./serve-fetch.mjs";
import {
  McpServer, ResourceTemplate, WebStandardStreamableHTTPServerTransport, acceptedContent, classifyInboundRequest,
  createMcpHandler, createRequestStateCodec, fromJsonSchema, hostHeaderValidationResponse, inputRequired, isInitializeRequest,
  localhostAllowedHostnames, originValidationResponse, CLIENT_CAPABILITIES_META_KEY,
} from "@modelcontextprotocol/server";
import * as z from "zod/v4";

const ERA = process.env.ERA ?? "both";
if (!["2025", "2026", "both"].includes(ERA)) {
  throw new Error(`ERA must be 2025, 2026 or both, not ${ERA}`);
}

const IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const text = (value) => ({ type: "text", text: value });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// requestState comes back from the client: sealed here (HMAC, per process) and verified by the SDK before a retried
// request reaches its handler, so an altered one is refused with -32602.
const stateCodec = createRequestStateCodec({ key: crypto.getRandomValues(new Uint8Array(32)) });

// The tools whose answer is fixed content.
const FIXED_TOOLS = {
  test_simple_text: [text("This is a simple text response for testing.")],
  test_image_content: [{ type: "image", data: IMAGE, mimeType: "image/png" }],
  test_audio_content: [{ type: "audio", data: AUDIO, mimeType: "audio/wav" }],
  test_embedded_resource: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain",
    text: "This is an embedded resource content." } }],
  test_multiple_content_types: [text("Multiple content types test:"),
    { type: "image", data: IMAGE, mimeType: "image/png" },
    { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json",
      text: JSON.stringify({ test: "data", value: 123 }) } }],
  test_streaming_elicitation: [text("a result, and no request of the server's on its stream")],
};

// The tools the 2025 scenarios drive by a server request (sampling/createMessage, elicitation/create), by what they
// ask (under the key "answer") and what they answer with the client's response. Written in the 2026 way like the
// others: a 2025 session gets the request from the SDK's legacy shim, a 2026 client as input_required.
const ASKING_TOOLS = {
  test_sampling: {
    inputSchema: { prompt: z.string() },
    ask: ({ prompt }) => inputRequired.createMessage({ messages: [{ role: "user", content: text(prompt) }], maxTokens: 100 }),
    answer: (response) => `LLM response: ${response.content?.text ?? "No response"}`,
  },
  test_elicitation: {
    inputSchema: { message: z.string() },
    ask: ({ message }) => inputRequired.elicit({ message, requestedSchema: { type: "object",
      properties: { response: { type: "string", description: "User's response" } }, required: ["response"] } }),
  },
  test_elicitation_sep1034_defaults: {
    inputSchema: {},
    ask: () => inputRequired.elicit({ message: "Please review and update the form fields with defaults",
      requestedSchema: { type: "object", required: [], properties: {
        name: { type: "string", description: "User name", default: "John Doe" },
        age: { type: "integer", description: "User age", default: 30 },
        score: { type: "number", description: "User score", default: 95.5 },
        status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
        verified: { type: "boolean", description: "Verification status", default: true },
      } } }),
  },
  test_elicitation_sep1330_enums: {
    inputSchema: {},
    ask: () => inputRequired.elicit({ message: "Please select options from the enum fields",
      requestedSchema: { type: "object", required: [], properties: {
        untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
        titledSingle: { type: "string", description: "Select one option with titles", oneOf: [
          { const: "value1", title: "First Option" }, { const: "value2", title: "Second Option" },
          { const: "value3", title: "Third Option" }] },
        legacyEnum: { type: "string", description: "Select one option (legacy)", enum: ["opt1", "opt2", "opt3"],
          enumNames: ["Option One", "Option Two", "Option Three"] },
        untitledMulti: { type: "array", description: "Select multiple options", minItems: 1, maxItems: 3,
          items: { type: "string", enum: ["option1", "option2", "option3"] } },
        titledMulti: { type: "array", description: "Select multiple options with titles", minItems: 1, maxItems: 3,
          items: { anyOf: [{ const: "value1", title: "First Choice" }, { const: "value2", title: "Second Choice" },
            { const: "value3", title: "Third Choice" }] } },
      } } }),
  },
};
const elicited = (response) => `User response: action=${response.action}, content=${JSON.stringify(response.content ?? {})}`;

// Tools whose input schema is JSON Schema as written (zod would not keep these keywords): the 2020-12 vocabulary, and
// an argument mirrored into a header (x-mcp-header, which a 2026 client sends as Mcp-Param-Region).
const SCHEMA_TOOLS = {
  json_schema_2020_12_tool: {
    $schema: "https://json-schema.org/draft/2020-12/schema", type: "object",
    $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
    properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" },
      contactMethod: { type: "string", enum: ["phone", "email"] }, phone: { type: "string" }, email: { type: "string" } },
    allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
    if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
    then: { required: ["phone"] }, else: { required: ["email"] },
    additionalProperties: false,
  },
  test_x_mcp_header: {
    type: "object", properties: {
      region: { type: "string", description: "mirrored into Mcp-Param-Region", "x-mcp-header": "Region" },
      level: { type: "integer", description: "an argument not mirrored" } },
  },
};

const ask = {
  name: () => inputRequired.elicit({ message: "What is your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }),
  confirm: () => inputRequired.elicit({ message: "Please confirm",
    requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } }),
  sample: (prompt, maxTokens) => inputRequired.createMessage({ messages: [{ role: "user", content: text(prompt) }], maxTokens }),
  roots: () => inputRequired.listRoots(),
};

// The tools that ask in the 2026 way: each returns input_required until the retry brings what it asked for.
const INPUT_TOOLS = {
  test_missing_capability: async (input) => input.llm_answer === undefined
    ? inputRequired({ inputRequests: { llm_answer: ask.sample("Reply with the single word: pong", 16) } })
    : [text("sampling round-trip complete")],
  test_input_required_result_elicitation: async (input) => {
    const name = acceptedContent(input, "user_name")?.name;
    return typeof name === "string" ? [text(`Hello, ${name}!`)] : inputRequired({ inputRequests: { user_name: ask.name() } });
  },
  test_input_required_result_sampling: async (input) => input.capital_question === undefined
    ? inputRequired({ inputRequests: { capital_question: ask.sample("What is the capital of France?", 100) } })
    : [text(`Sampling response: ${input.capital_question.content?.text ?? JSON.stringify(input.capital_question)}`)],
  test_input_required_result_list_roots: async (input) => Array.isArray(input.client_roots?.roots)
    ? [text(`Client exposed ${input.client_roots.roots.length} root(s): ${input.client_roots.roots.map((r) => r.uri).join(", ")}`)]
    : inputRequired({ inputRequests: { client_roots: ask.roots() } }),
  test_input_required_result_request_state: async (input, state) => acceptedContent(input, "confirm") !== undefined && state
    ? [text("state-ok: requestState verified and confirmation received")]
    : inputRequired({ inputRequests: { confirm: ask.confirm() },
      requestState: await stateCodec.mint({ tool: "request_state", nonce: randomUUID() }) }),
  test_input_required_result_multiple_inputs: async (input) => {
    const name = acceptedContent(input, "user_name")?.name;
    const greeting = input.greeting?.content?.text;
    const roots = input.client_roots?.roots;
    return typeof name === "string" && typeof greeting === "string" && Array.isArray(roots)
      ? [text(`${greeting} ${name}: ${roots.length} root(s) visible`)]
      : inputRequired({ inputRequests: { user_name: ask.name(), greeting: ask.sample("Generate a greeting", 50),
        client_roots: ask.roots() }, requestState: await stateCodec.mint({ tool: "multiple_inputs", nonce: randomUUID() }) });
  },
  test_input_required_result_multi_round: async (input, state) => {
    const round = state?.tool === "multi_round" ? state.round : 0;
    if (round === 0) {
      return inputRequired({ inputRequests: { step1: inputRequired.elicit({ message: "Step 1: What is your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }) },
      requestState: await stateCodec.mint({ tool: "multi_round", round: 1, nonce: randomUUID() }) });
    }
    if (round === 1) {
      const name = acceptedContent(input, "step1")?.name ?? "unknown";
      return inputRequired({ inputRequests: { step2: inputRequired.elicit({ message: "Step 2: What is your favorite color?",
        requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] } }) },
      requestState: await stateCodec.mint({ tool: "multi_round", round: 2, name, nonce: randomUUID() }) });
    }
    return [text(`Multi-round complete: ${state.name} likes ${acceptedContent(input, "step2")?.color ?? "unknown"}`)];
  },
  test_input_required_result_tampered_state: async (input, state) => state && acceptedContent(input, "confirm") !== undefined
    ? [text("integrity-ok: requestState verified")]
    : inputRequired({ inputRequests: { confirm: ask.confirm() },
      requestState: await stateCodec.mint({ tool: "tampered_state", nonce: randomUUID() }) }),
  test_input_required_result_capabilities: async (_input, _state, ctx, server) => {
    if (ctx.mcpReq.inputResponses !== undefined) {
      return [text("Capability-aware input requests fulfilled")];
    }
    const declared = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities() ?? {};
    const inputRequests = {};
    if (declared.elicitation !== undefined) inputRequests.user_name = ask.name();
    if (declared.sampling !== undefined) inputRequests.greeting = ask.sample("Generate a short greeting", 50);
    if (declared.roots !== undefined) inputRequests.client_roots = ask.roots();
    return Object.keys(inputRequests).length === 0
      ? [text("No declared client capability supports an input request")] : inputRequired({ inputRequests });
  },
};

// The 2025 sessions, by id: each its own transport and McpServer.
const sessions = new Map();

function createServer(era) {
  const server = new McpServer({ name: "mcp-relay-conformance-fixture", version: "1.0.0" }, {
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true }, logging: {}, completions: {} },
    requestState: { verify: stateCodec.verify },
  });
  for (const [name, content] of Object.entries(FIXED_TOOLS)) {
    server.registerTool(name, { description: `answers ${name}'s fixed content`, inputSchema: {} }, async () => ({ content }));
  }
  for (const [name, tool] of Object.entries(ASKING_TOOLS)) {
    server.registerTool(name, { description: `asks the client (${name})`, inputSchema: tool.inputSchema },
      async (args, ctx) => {
        const response = ctx.mcpReq.inputResponses?.answer;
        return response === undefined ? inputRequired({ inputRequests: { answer: tool.ask(args) } })
          : { content: [text((tool.answer ?? elicited)(response))] };
      });
  }
  for (const [name, schema] of Object.entries(SCHEMA_TOOLS)) {
    server.registerTool(name, { description: `takes arguments of a JSON Schema as written (${name})`,
      inputSchema: fromJsonSchema(schema) }, async (args) => ({ content: [text(`${name} called with ${JSON.stringify(args)}`)] }));
  }
  for (const [name, handle] of Object.entries(INPUT_TOOLS)) {
    server.registerTool(name, { description: `asks the client in the 2026 way (${name})`, inputSchema: {} },
      async (_args, ctx) => {
        const answer = await handle(ctx.mcpReq.inputResponses ?? {}, ctx.mcpReq.requestState(), ctx, server.server);
        return Array.isArray(answer) ? { content: answer } : answer;
      });
  }
  server.registerTool("test_tool_with_logging", { description: "logs three messages", inputSchema: {} }, async (_args, ctx) => {
    for (const message of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
      await ctx.mcpReq.notify({ method: "notifications/message", params: { level: "info", data: message } });
      await sleep(20);
    }
    return { content: [text("Tool with logging executed successfully")] };
  });
  server.registerTool("test_logging_tool", { description: "logs through the request's logLevel", inputSchema: {} },
    async (_args, ctx) => {
      await ctx.mcpReq.log("info", "test_logging_tool ran");
      return { content: [text("logged")] };
    });
  server.registerTool("test_tool_with_progress", { description: "reports progress", inputSchema: {} }, async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      for (const progress of [0, 50, 100]) {
        await ctx.mcpReq.notify({ method: "notifications/progress",
          params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` } });
        await sleep(20);
      }
    }
    return { content: [text(String(progressToken ?? "no-progress-token"))] };
  });
  server.registerTool("test_error_handling", { description: "fails", inputSchema: {} }, async () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  server.registerTool("test_trigger_tool_change", { description: "announces a tools/list_changed", inputSchema: {} },
    async () => {
      era === "modern" ? modern.notify.toolsChanged() : server.sendToolListChanged();
      return { content: [text("tools_list_changed published")] };
    });
  server.registerTool("test_trigger_prompt_change", { description: "announces a prompts/list_changed", inputSchema: {} },
    async () => {
      era === "modern" ? modern.notify.promptsChanged() : server.sendPromptListChanged();
      return { content: [text("prompts_list_changed published")] };
    });

  for (const [name, uri, mimeType, body] of [
    ["static-text", "test://static-text", "text/plain", { text: "This is the content of the static text resource." }],
    ["static-binary", "test://static-binary", "image/png", { blob: IMAGE }],
    ["watched-resource", "test://watched-resource", "text/plain", { text: "Watched resource content" }],
  ]) {
    server.registerResource(name, uri, { title: name, description: `the ${name} resource`, mimeType },
      async () => ({ contents: [{ uri, mimeType, ...body }] }));
  }
  server.registerResource("template", new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { title: "template", description: "data by id", mimeType: "application/json" },
    async (uri, { id }) => ({ contents: [{ uri: uri.toString(), mimeType: "application/json",
      text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] }));
  server.server.setRequestHandler("resources/subscribe", async () => ({}));
  server.server.setRequestHandler("resources/unsubscribe", async () => ({}));

  const userMessage = (content) => ({ role: "user", content });
  server.registerPrompt("test_simple_prompt", { title: "simple", description: "no arguments" },
    async () => ({ messages: [userMessage(text("This is a simple prompt for testing."))] }));
  server.registerPrompt("test_prompt_with_arguments", { title: "arguments", description: "two arguments",
    argsSchema: { arg1: z.string().describe("First test argument"), arg2: z.string().describe("Second test argument") } },
  async ({ arg1, arg2 }) => ({ messages: [userMessage(text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`))] }));
  server.registerPrompt("test_prompt_with_embedded_resource", { title: "embedded", description: "embeds a resource",
    argsSchema: { resourceUri: z.string().describe("URI of the resource to embed") } },
  async ({ resourceUri }) => ({ messages: [
    userMessage({ type: "resource", resource: { uri: resourceUri, mimeType: "text/plain",
      text: "Embedded resource content for testing." } }),
    userMessage(text("Please process the embedded resource above."))] }));
  server.registerPrompt("test_prompt_with_image", { title: "image", description: "an image" },
    async () => ({ messages: [userMessage({ type: "image", data: IMAGE, mimeType: "image/png" }),
      userMessage(text("Please analyze the image above."))] }));
  server.registerPrompt("test_input_required_result_prompt", { title: "asks first", description: "elicits a context" },
    async (ctx) => {
      const context = acceptedContent(ctx.mcpReq.inputResponses, "user_context")?.context;
      return typeof context === "string" ? { messages: [userMessage(text(`Use the following context: ${context}`))] }
        : inputRequired({ inputRequests: { user_context: inputRequired.elicit({ message: "What context should the prompt use?",
          requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] } }) } });
    });

  server.server.setRequestHandler("logging/setLevel", async () => ({}));
  server.server.setRequestHandler("completion/complete", async () => ({ completion: { values: [], total: 0, hasMore: false } }));
  return server;
}

const modern = createMcpHandler((ctx) => createServer(ctx.era), { legacy: ERA === "2026" ? "reject" : "stateless" });

const jsonError = (status, code, message) => new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }),
  { status, headers: { "Content-Type": "application/json" } });

// A 2025 request: in its session, or an initialize that opens one.
async function serveSession(request, body) {
  const sessionId = request.headers.get("mcp-session-id");
  if (sessionId) {
    const transport = sessions.get(sessionId);
    return transport ? transport.handleRequest(request, { parsedBody: body }) : jsonError(404, -32001, "Session not found");
  }
  if (request.method !== "POST" || !isInitializeRequest(body)) {
    return jsonError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
  }
  const server = createServer("legacy");
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
    onsessionclosed: (id) => sessions.delete(id),
  });
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody: body });
}

function bodyOf(raw) {
  try {
    return raw.length > 0 ? JSON.parse(raw.toString("utf8")) : undefined;
  } catch {
    return undefined;
  }
}

serveFetch({
  async fetch(request) {
    const refused = hostHeaderValidationResponse(request, localhostAllowedHostnames())
      ?? originValidationResponse(request, localhostAllowedHostnames());
    if (refused) {
      return refused;
    }
    const body = request.method === "POST" ? bodyOf(Buffer.from(await request.clone().arrayBuffer())) : undefined;
    if (ERA === "2026") {
      return modern.fetch(request);
    }
    const route = classifyInboundRequest({ httpMethod: request.method,
      protocolVersionHeader: request.headers.get("mcp-protocol-version") ?? undefined,
      mcpMethodHeader: request.headers.get("mcp-method") ?? undefined,
      mcpNameHeader: request.headers.get("mcp-name") ?? undefined, body });
    if (route.kind === "legacy") {
      return serveSession(request, body);
    }
    return ERA === "2025" ? jsonError(400, -32000, "Bad Request: Mcp-Session-Id header is required") : modern.fetch(request);
  },
});
