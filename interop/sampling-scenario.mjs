// Runs, RUNS times over (argv[3], default 50), a fresh TypeScript SDK client session against one endpoint
// (argv[2]): connect (the SDK then opens the GET stream by itself), call the sampling-on-get-stream server's tool at
// once, answer its sampling/createMessage, and wait for the tool's result. A call whose sampling request never
// reaches the client is lost: one that is not answered within the wait (5 s) waits up to LATE_MS more for its sampling
// request, and counts as late if that comes (slow, on a busy machine, but nothing lost), as lost if it does not.
// argv[4] (default 1) is how many sessions run at once; argv[5] onwards name the tools each session calls in turn
// (default ask-model): through a virtual server, one per member.
// Prints {"runs": N, "answered": N, "late": N, "lost": N, "failed": N} on stdout, counting each call. GET_DELAY_MS (environment)
// holds each GET the client sends that long: a client whose GET stream reaches the server after its first call.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const endpoint = new URL(process.argv[2]);
const runs = Number(process.argv[3] ?? 50);
const concurrency = Number(process.argv[4] ?? 1);
const tools = process.argv.length > 5 ? process.argv.slice(5) : ["ask-model"];
const waitMs = 5000;
const lateMs = 30000;
const getDelayMs = Number(process.env.GET_DELAY_MS ?? 0);
const delayingGets = async (url, init) => {
  if ((init?.method ?? "GET") === "GET" && getDelayMs > 0) {
    await new Promise((resolve) => setTimeout(resolve, getDelayMs));
  }
  return fetch(url, init);
};
const outcome = { runs, calls: 0, answered: 0, late: 0, lost: 0, failed: 0, errors: [] };

async function session() {
  const client = new Client({ name: "mcp-relay-interop-sampling", version: "1.0.0" }, { capabilities: { sampling: {} } });
  // the sampling requests this session's client received, and a wake-up for a call waiting for its own
  let asked = 0;
  let onAsked = () => {};
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked++;
    onAsked();
    return {
      role: "assistant",
      model: "interop-model",
      content: { type: "text", text: "hello" },
    };
  });
  // resolves true once the client has received `count` sampling requests, false if not within lateMs
  const askedBy = (count) =>
    new Promise((resolve) => {
      if (asked >= count) {
        resolve(true);
        return;
      }
      const timer = setTimeout(() => resolve(false), lateMs);
      onAsked = () => {
        if (asked >= count) {
          clearTimeout(timer);
          resolve(true);
        }
      };
    });
  const transport = new StreamableHTTPClientTransport(endpoint, { fetch: delayingGets });
  try {
    await client.connect(transport);
    let called = 0;
    for (const tool of tools) {
      outcome.calls++;
      called++;
      try {
        const result = await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: waitMs });
        if (result.content?.[0]?.text === "model said: hello") {
          outcome.answered++;
        } else {
          outcome.failed++;
          outcome.errors.push(JSON.stringify(result));
        }
      } catch (error) {
        if (String(error?.message).includes("timed out")) {
          if (await askedBy(called)) {
            outcome.late++;
          } else {
            outcome.lost++;
          }
        } else {
          outcome.failed++;
          outcome.errors.push(String(error?.message ?? error));
        }
      }
    }
  } catch (error) {
    outcome.failed++;
    outcome.errors.push(String(error?.message ?? error));
  }
  try {
    await transport.terminateSession();
  } catch {
    // the session may be gone already
  }
  await client.close();
}

let started = 0;
async function worker() {
  while (started < runs) {
    started++;
    await session();
  }
}
await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
outcome.errors = outcome.errors.slice(0, 5);
process.stdout.write(JSON.stringify(outcome) + "\n");
process.exit(0);
