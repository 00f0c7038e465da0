// The session-heavy bench's traffic (bench/sessions.sh): CONCURRENCY workers, each running MCP sessions back to back
// for DURATION_S seconds, every HTTP exchange sent to the next relay of RELAYS in turn (so with several relays the
// requests of one session land on different ones and the session lives only in the shared store). One session:
//   /mcp/both   (a virtual server over two members) initialize, notifications/initialized, tools/list,
//               tools/call m1_t1, tools/call m2_t2, DELETE
//   /mcp/found  (the same members, tool search on) initialize, tools/list, tools/call search_available_tools, DELETE
// Every answer is checked (status, and the JSON-RPC result where there is one); a failure is counted, never retried.
// Node's http module only. Environment:
//   RELAYS        comma-separated base URLs (http://127.0.0.1:PORT,...)
//   DURATION_S    seconds of traffic (a session under way at the end is finished, its exchanges counted)
//   CONCURRENCY   sessions at once (8)
//   OUT           file the result is written to (JSON): exchanges, sessions, failures (with up to 5 samples), and the
//                 latency percentiles in ms (p50, p90, p99, max) over every exchange
import http from "node:http";
import { writeFileSync } from "node:fs";

const relays = (process.env.RELAYS ?? "http://127.0.0.1:8080").split(",").map((url) => new URL(url));
const durationMs = Number(process.env.DURATION_S ?? 20) * 1000;
const concurrency = Number(process.env.CONCURRENCY ?? 8);
const out = process.env.OUT ?? "session-driver.json";
const PROTOCOL = "2025-11-25";
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

let next = 0;
let exchanges = 0;
let sessions = 0;
let failures = 0;
const samples = [];
const latencies = [];

function fail(what) {
  failures++;
  if (samples.length < 5) samples.push(String(what).slice(0, 300));
}

// One exchange on the next relay; resolves {status, headers, body} (an SSE answer's last data line as the body).
function send(method, path, { body, session } = {}) {
  const relay = relays[next++ % relays.length];
  const headers = { Accept: "application/json, text/event-stream", "MCP-Protocol-Version": PROTOCOL };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (session) headers["Mcp-Session-Id"] = session;
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const request = http.request({ host: relay.hostname, port: relay.port, path, method, headers, agent }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => {
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        exchanges++;
        let text = Buffer.concat(chunks).toString("utf8");
        if ((response.headers["content-type"] ?? "").startsWith("text/event-stream")) {
          const data = text.split("\n").filter((line) => line.startsWith("data:"));
          text = data.length ? data[data.length - 1].slice(5).trim() : "";
        }
        resolve({ status: response.statusCode, headers: response.headers, body: text });
      });
    });
    request.on("error", (error) => resolve({ status: 0, headers: {}, body: String(error) }));
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

let id = 0;
const call = (method, params) => ({ jsonrpc: "2.0", id: ++id, method, ...(params ? { params } : {}) });

// A request whose answer must be a JSON-RPC result; returns the result, or undefined after counting a failure.
async function result(path, session, method, params) {
  const answer = await send("POST", path, { session, body: call(method, params) });
  let message;
  try {
    message = JSON.parse(answer.body);
  } catch {
    message = undefined;
  }
  if (answer.status !== 200 || !message?.result) {
    fail(`${method} on ${path}: ${answer.status} ${answer.body}`);
    return undefined;
  }
  return { result: message.result, session: answer.headers["mcp-session-id"] };
}

async function open(path) {
  const opened = await result(path, undefined, "initialize",
    { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "session-bench", version: "1" } });
  if (!opened?.session) {
    if (opened) fail(`initialize on ${path}: no Mcp-Session-Id`);
    return undefined;
  }
  const initialized = await send("POST", path,
    { session: opened.session, body: { jsonrpc: "2.0", method: "notifications/initialized" } });
  if (initialized.status !== 202) fail(`initialized on ${path}: ${initialized.status} ${initialized.body}`);
  return opened.session;
}

async function close(path, session) {
  const ended = await send("DELETE", path, { session });
  if (ended.status !== 200 && ended.status !== 204) fail(`DELETE on ${path}: ${ended.status} ${ended.body}`);
}

async function oneSession() {
  const both = await open("/mcp/both");
  if (both) {
    const listed = await result("/mcp/both", both, "tools/list");
    if (listed && listed.result.tools.length !== 40) fail(`tools/list on both: ${listed.result.tools.length} tools`);
    await result("/mcp/both", both, "tools/call", { name: "m1_t1", arguments: {} });
    await result("/mcp/both", both, "tools/call", { name: "m2_t2", arguments: {} });
    await close("/mcp/both", both);
  }
  const found = await open("/mcp/found");
  if (found) {
    await result("/mcp/found", found, "tools/list");
    const searched = await result("/mcp/found", found, "tools/call",
      { name: "search_available_tools", arguments: { query: "tool 7" } });
    if (searched && JSON.stringify(searched.result).indexOf("t7") < 0) fail(`search found no t7: ${JSON.stringify(searched.result)}`);
    await close("/mcp/found", found);
  }
  sessions++;
}

const deadline = Date.now() + durationMs;
async function worker() {
  while (Date.now() < deadline) {
    await oneSession();
  }
}

const startedAt = Date.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = (Date.now() - startedAt) / 1000;
latencies.sort((a, b) => a - b);
const at = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : 0);
writeFileSync(out, JSON.stringify({
  seconds, exchanges, sessions, failures, samples,
  p50: at(0.5), p90: at(0.9), p99: at(0.99), max: latencies[latencies.length - 1] ?? 0,
}));
agent.destroy();
