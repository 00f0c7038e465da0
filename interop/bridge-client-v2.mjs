// A client written with the official TypeScript SDK v2 (@modelcontextprotocol/client) that talks to the MCP endpoint
// at argv[2] in the era argv[3] names: "modern" pins MCP 2026-07-28 (server/discover, no session, the envelope in each
// request's _meta; no fallback), "legacy" speaks session-era MCP (initialize). Against the Java SDK's server through the
// relay's version bridge ("modern") and directly ("legacy"), the two transcripts are to hold the same answers. Lists
// and calls tools (echo, an unknown one), lists and gets prompts, lists and reads resources, and calls ask-model, whose
// server asks the client for a completion (a server request in 2025; an input_required result in 2026, which the SDK
// fulfils with the same handler and retries with the relay's requestState). Prints a JSON transcript.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const endpoint = new URL(process.argv[2]);
const era = process.argv[3] ?? "modern";
const client = new Client({ name: "mcp-relay-bridge-v2", version: "1.0.0" },
  { capabilities: { sampling: {} }, versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" } });
const sampled = [];
client.setRequestHandler("sampling/createMessage", async (request) => {
  sampled.push(request.params.messages?.[0]?.content?.text ?? null);
  return { role: "assistant", content: { type: "text", text: "hello from the model" }, model: "interop-model" };
});
const transcript = {};
try {
  await client.connect(new StreamableHTTPClientTransport(endpoint));
} catch (error) {
  transcript.failed = String(error?.message ?? error);
  process.stdout.write(JSON.stringify(transcript) + "\n");
  process.exit(0);
}
transcript.era = client.getProtocolEra() ?? null;
transcript.protocolVersion = client.getNegotiatedProtocolVersion() ?? null;
transcript.serverName = client.getServerVersion()?.name ?? null;
transcript.capabilities = Object.keys(client.getServerCapabilities() ?? {}).sort();
const tools = (await client.listTools()).tools;
transcript.tools = tools.map((tool) => tool.name).sort();
transcript.echoSchema = tools.find((tool) => tool.name === "echo")?.inputSchema ?? null;
const echoed = await client.callTool({ name: "echo", arguments: { message: "h\u00e9llo" } });
transcript.echo = echoed.content?.[0]?.text ?? JSON.stringify(echoed);
transcript.unknownTool = await client.callTool({ name: "no-such-tool", arguments: {} })
  .then((result) => ({ isError: result.isError === true, text: result.content?.[0]?.text ?? null }),
    (error) => ({ code: error?.code ?? null, message: String(error?.message ?? error) }));
transcript.prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name).sort();
const greeting = await client.getPrompt({ name: "greeting", arguments: { name: "Ada" } });
transcript.greeting = greeting.messages?.[0]?.content?.text ?? JSON.stringify(greeting);
transcript.resources = (await client.listResources()).resources.map((resource) => resource.uri).sort();
const memo = await client.readResource({ uri: "memo://one" });
transcript.memo = memo.contents?.[0]?.text ?? JSON.stringify(memo);
const asked = await client.callTool({ name: "ask-model", arguments: {} })
  .then((result) => result.content?.[0]?.text ?? JSON.stringify(result), (error) => ({ error: String(error?.message ?? error) }));
transcript.askModel = asked;
transcript.sampled = sampled;
await client.close();
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(0);
