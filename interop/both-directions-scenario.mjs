// One TypeScript SDK client session against one endpoint (argv[2]) of the sampling-on-get-stream server: answer its
// sampling/createMessage and elicitation/create requests, recording what they asked, and call both tools. Prints
// {"sampling": {...asked}, "elicitation": {...asked}, "askModel": text, "askUser": text} on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const endpoint = new URL(process.argv[2]);
const seen = {};
const client = new Client({ name: "mcp-relay-interop-both-directions", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  seen.sampling = { maxTokens: request.params.maxTokens, systemPrompt: request.params.systemPrompt ?? null };
  return { role: "assistant", model: "interop-model", content: { type: "text", text: "hello" } };
});
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  seen.elicitation = { message: request.params.message };
  return { action: "accept", content: { email: "Alice@Example.com" } };
});
const transport = new StreamableHTTPClientTransport(endpoint);
await client.connect(transport);
// The server asks over the GET stream the SDK opens after connecting; give it a moment to be open, since the race
// between the two is another test's subject (sampling-scenario.mjs), not this one's.
await new Promise((resolve) => setTimeout(resolve, 300));
const askModel = await client.callTool({ name: "ask-model", arguments: {} }, undefined, { timeout: 10000 });
const askUser = await client.callTool({ name: "ask-user", arguments: {} }, undefined, { timeout: 10000 });
console.log(JSON.stringify({ ...seen, askModel: askModel.content[0].text, askUser: askUser.content[0].text }));
await transport.terminateSession().catch(() => {});
await client.close();
