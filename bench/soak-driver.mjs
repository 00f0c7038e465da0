// The soak's traffic: mixed MCP traffic through one relay, all kinds at once, each at a fixed rate and with bounded
// concurrency, for DURATION_S seconds; then it stops starting work, lets what is in flight finish, ends its sessions
// and exits. Node's http module only. Environment:
//   RELAY        the relay's base URL (http://127.0.0.1:PORT)
//   DURATION_S   seconds of traffic
//   COUNTS       file the counts are written to (JSON), every 5 s and at the end
//   RATE_SCALE   multiplies every rate (default 1)
// Servers on the relay: `soak` (JSON answers), `soak-sse` (SSE answers), both denying the tool `secret`, and the
// virtual server `both` over the two. What it sends, per second at RATE_SCALE 1 (see KINDS below):
//   json_call      20 tools/call echo on `soak` (JSON), each answer checked against its message
//   sse_call        2 tools/call countdown (5 progress events 100 ms apart, then the result) on `soak-sse`; 1 in 5
//                    is dropped by the client after its second progress event (cancelled mid-stream)
//   session         1 session lifecycle, alternately on `soak` and `soak-sse`: initialize, notifications/initialized,
//                    tools/list, a GET stream (one event every 500 ms from the upstream), 3 tools/call, a 2-6 s hold,
//                    then the GET stream ends either by the client dropping it mid-stream (half) or by the DELETE
//                    ending the session while it is open (half); at most 30 lifecycles at once
//   denied          1 tools/call of `secret` (denied by tools.deny): must be refused with -32602, never forwarded
//   unknown_server  1 POST to /mcp/no-such-server: must be 404 unknown_server
//   malformed       1 POST of a body that is not JSON to /mcp/soak: must be 400 parse_error (-32700)
//   virtual       0.2 session on the virtual server `both`: initialize, tools/list (both members' tools, prefixed),
//                    soak_echo, soak-sse_countdown, a GET stream dropped by the client mid-stream, DELETE
import http from "node:http";
import { writeFileSync } from "node:fs";

const base = process.env.RELAY ?? "http://127.0.0.1:8080";
const durationMs = Number(process.env.DURATION_S ?? 60) * 1000;
const countsFile = process.env.COUNTS ?? "soak-counts.json";
const scale = Number(process.env.RATE_SCALE ?? 1);
const PROTOCOL = "2025-11-25";
const TIMEOUT_MS = 30000;
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

// per kind: requests sent, expected outcomes (answers and deliberate rejections), unexpected errors; plus sub-counts
const counts = {};
const samples = {};
const count = (kind, key, n = 1) => {
  counts[kind] ??= { requests: 0, ok: 0, rejected_as_expected: 0, unexpected: 0 };
  counts[kind][key] = (counts[kind][key] ?? 0) + n;
};
const unexpected = (kind, what) => {
  count(kind, "unexpected");
  samples[kind] ??= [];
  if (samples[kind].length < 5) samples[kind].push(`${new Date().toISOString()} ${String(what).slice(0, 300)}`);
};
const started = Date.now();
let stopping = false;
const inFlight = new Set();
const writeCounts = (final = false) =>
  writeFileSync(countsFile, JSON.stringify({ final, elapsedSeconds: Math.round((Date.now() - started) / 1000), counts, samples }, null, 1));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let nextId = 1;

// One HTTP exchange. Resolves {status, headers, messages, raw}; for SSE answers `messages` holds every event's JSON.
// onEvent(message, request) is called per SSE event as it arrives (it may destroy the request: resolves {aborted}).
function exchange(method, path, { body, session, accept, onEvent, timeoutMs = TIMEOUT_MS } = {}) {
  return new Promise((resolve) => {
    const headers = { Accept: accept ?? "application/json, text/event-stream" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (session) {
      headers["Mcp-Session-Id"] = session;
      headers["MCP-Protocol-Version"] = PROTOCOL;
    }
    let done = false;
    const finish = (value) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(value);
      }
    };
    const request = http.request(new URL(path, base), { method, agent, headers }, (response) => {
      const sse = String(response.headers["content-type"] ?? "").startsWith("text/event-stream");
      const messages = [];
      let raw = "";
      let pending = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        if (!sse) {
          raw += chunk;
          return;
        }
        pending += chunk.replace(/\r\n?/g, "\n"); // (a \r\n split across chunks leaves a stray \n: harmless here)
        let at;
        while ((at = pending.indexOf("\n\n")) >= 0) {
          const block = pending.slice(0, at);
          pending = pending.slice(at + 2);
          const data = block.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()).join("\n");
          if (!data) continue;
          let message;
          try {
            message = JSON.parse(data);
          } catch {
            message = { unparsable: data };
          }
          messages.push(message);
          if (onEvent && onEvent(message) === "drop") {
            request.destroy();
            finish({ status: response.statusCode, headers: response.headers, messages, aborted: true });
            return;
          }
        }
      });
      response.on("end", () => {
        let parsed = messages;
        if (!sse && raw) {
          try {
            parsed = [JSON.parse(raw)];
          } catch {
            parsed = [{ unparsable: raw }];
          }
        }
        finish({ status: response.statusCode, headers: response.headers, messages: parsed, raw });
      });
      response.on("error", (error) => finish({ status: response.statusCode, error: error.message, messages }));
      response.on("aborted", () => finish({ status: response.statusCode, error: "aborted by the server", messages }));
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish({ error: `no end within ${timeoutMs} ms` });
    }, timeoutMs);
    request.on("error", (error) => finish({ error: error.message }));
    if (body !== undefined) request.write(typeof body === "string" ? body : JSON.stringify(body));
    request.end();
  });
}

const rpc = (method, params) => ({ jsonrpc: "2.0", id: nextId++, method, ...(params ? { params } : {}) });
const result = (answer, id) => answer.messages?.find((m) => m.id === id && (m.result || m.error));
const describe = (answer) =>
  `status ${answer.status ?? "-"} ${answer.error ?? ""} ${JSON.stringify(answer.messages ?? []).slice(0, 200)}`;

async function initialize(kind, server) {
  const init = rpc("initialize", { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "soak", version: "1" } });
  count(kind, "requests");
  const answer = await exchange("POST", `/mcp/${server}`, { body: init });
  const session = answer.headers?.["mcp-session-id"];
  if (answer.status !== 200 || !result(answer, init.id)?.result || !session) {
    unexpected(kind, `initialize ${server}: ${describe(answer)}`);
    return undefined;
  }
  count(kind, "ok");
  count(kind, "initialized");
  count(kind, "requests");
  const note = await exchange("POST", `/mcp/${server}`, { body: { jsonrpc: "2.0", method: "notifications/initialized" }, session });
  if (note.status !== 202) unexpected(kind, `notifications/initialized ${server}: ${describe(note)}`);
  else count(kind, "ok");
  return session;
}

async function end(kind, server, session) {
  count(kind, "requests");
  const answer = await exchange("DELETE", `/mcp/${server}`, { session });
  if (answer.status >= 200 && answer.status < 300) {
    count(kind, "ok");
    count(kind, "deleted");
  } else {
    unexpected(kind, `DELETE ${server}: ${describe(answer)}`);
  }
}

async function echo(kind, server, session, tool = "echo") {
  const message = `m${nextId}-${Math.random().toString(36).slice(2)}`;
  const call = rpc("tools/call", { name: tool, arguments: { message } });
  count(kind, "requests");
  const answer = await exchange("POST", `/mcp/${server}`, { body: call, session });
  const text = result(answer, call.id)?.result?.content?.[0]?.text;
  if (answer.status === 200 && text === message) count(kind, "ok");
  else unexpected(kind, `tools/call ${tool} on ${server}: ${describe(answer)}`);
}

// a countdown; drop: the client goes away after the second progress event
async function countdown(kind, server, session, { drop = false, tool = "countdown" } = {}) {
  const call = rpc("tools/call", { name: tool, arguments: { from: 5, intervalMs: 100 }, _meta: { progressToken: `p${nextId}` } });
  count(kind, "requests");
  let progress = 0;
  const answer = await exchange("POST", `/mcp/${server}`, {
    body: call,
    session,
    onEvent: (message) => {
      if (message.method === "notifications/progress") progress++;
      return drop && progress === 2 ? "drop" : undefined;
    },
  });
  if (drop) {
    if (answer.aborted && answer.status === 200) {
      count(kind, "ok");
      count(kind, "dropped_mid_stream");
    } else unexpected(kind, `dropped countdown on ${server}: ${describe(answer)}`);
    return;
  }
  const text = result(answer, call.id)?.result?.content?.[0]?.text;
  const sse = String(answer.headers?.["content-type"] ?? "").startsWith("text/event-stream");
  if (answer.status === 200 && text === "liftoff" && (!sse || progress === 5)) {
    count(kind, "ok");
    if (sse) count(kind, "streamed");
  } else unexpected(kind, `countdown on ${server}: progress ${progress}, ${describe(answer)}`);
}

// opens the session's GET stream; resolves {first} when its first event arrived, and {ended} when it ended
function getStream(kind, server, session) {
  count(kind, "requests");
  count(kind, "get_opened");
  let events = 0;
  let drop = false;
  let firstEvent;
  const first = new Promise((resolve) => (firstEvent = resolve));
  const ended = exchange("GET", `/mcp/${server}`, {
    session,
    accept: "text/event-stream",
    timeoutMs: 120000,
    onEvent: () => {
      events++;
      firstEvent(true);
      return drop ? "drop" : undefined;
    },
  }).then((answer) => {
    firstEvent(false);
    return { answer, events };
  });
  return { first, ended, drop: () => (drop = true) };
}

async function sessionLifecycle(n) {
  const kind = "session";
  const server = n % 2 === 0 ? "soak" : "soak-sse";
  const session = await initialize(kind, server);
  if (!session) return;
  const list = rpc("tools/list");
  count(kind, "requests");
  const tools = await exchange("POST", `/mcp/${server}`, { body: list, session });
  const names = result(tools, list.id)?.result?.tools?.map((tool) => tool.name) ?? [];
  // the relay hides the denied tool
  if (tools.status === 200 && names.includes("echo") && names.includes("countdown") && !names.includes("secret")) count(kind, "ok");
  else unexpected(kind, `tools/list on ${server}: ${describe(tools)}`);
  const stream = getStream(kind, server, session);
  if (!(await stream.first)) {
    const { answer } = await stream.ended;
    unexpected(kind, `GET stream on ${server} ended before its first event: ${describe(answer)}`);
    await end(kind, server, session);
    return;
  }
  for (let i = 0; i < 3; i++) {
    if (server === "soak") await echo(kind, server, session);
    else await countdown(kind, server, session);
  }
  await sleep(2000 + Math.random() * 4000);
  if (n % 4 < 2) {
    // the client drops its GET stream mid-stream, then ends the session
    stream.drop();
    const { answer, events } = await stream.ended;
    if (answer.aborted && events > 1) {
      count(kind, "ok");
      count(kind, "get_dropped_mid_stream");
    } else unexpected(kind, `GET stream on ${server} was not open to drop: ${events} events, ${describe(answer)}`);
    await end(kind, server, session);
  } else {
    // the session ends (DELETE) while its GET stream is open: the upstream ends the stream, and so must the relay
    await end(kind, server, session);
    const { answer, events } = await stream.ended;
    if (!answer.aborted && !answer.error?.startsWith("no end") && answer.status === 200 && events > 1) {
      count(kind, "ok");
      count(kind, "get_ended_by_delete");
    } else unexpected(kind, `GET stream on ${server} after DELETE: ${events} events, ${describe(answer)}`);
  }
}

async function virtualLifecycle() {
  const kind = "virtual";
  const session = await initialize(kind, "both");
  if (!session) return;
  const list = rpc("tools/list");
  count(kind, "requests");
  const tools = await exchange("POST", "/mcp/both", { body: list, session });
  const names = result(tools, list.id)?.result?.tools?.map((tool) => tool.name) ?? [];
  const want = ["soak_echo", "soak_countdown", "soak-sse_echo", "soak-sse_countdown"];
  if (tools.status === 200 && want.every((name) => names.includes(name)) && !names.some((name) => name.endsWith("secret"))) count(kind, "ok");
  else unexpected(kind, `tools/list on both: ${describe(tools)}`);
  await echo(kind, "both", session, "soak_echo");
  await countdown(kind, "both", session, { tool: "soak-sse_countdown" });
  const stream = getStream(kind, "both", session);
  // the merged stream carries both members' ticks: once its first has come (or 2 s have passed), the client drops it
  // at its next event
  await Promise.race([stream.first, sleep(2000)]);
  stream.drop();
  const { answer, events } = await Promise.race([stream.ended, sleep(3000).then(() => ({ answer: { error: "still open" }, events: -1 }))]);
  if (answer.status === 200 && (answer.aborted || !answer.error)) {
    count(kind, "ok");
    count(kind, "get_dropped");
    count(kind, "get_events", Math.max(0, events));
  } else unexpected(kind, `GET stream on both: ${describe(answer)}`);
  await end(kind, "both", session);
}

async function denied(kind, server, session) {
  const call = rpc("tools/call", { name: "secret", arguments: {} });
  count(kind, "requests");
  const answer = await exchange("POST", `/mcp/${server}`, { body: call, session });
  const error = result(answer, call.id)?.error;
  if (error?.code === -32602) count(kind, "rejected_as_expected");
  else unexpected(kind, `denied tool on ${server}: ${describe(answer)}`);
}

async function unknownServer(kind) {
  const call = rpc("tools/call", { name: "echo", arguments: { message: "x" } });
  count(kind, "requests");
  const answer = await exchange("POST", "/mcp/no-such-server", { body: call });
  const error = answer.messages?.[0]?.error;
  if (answer.status === 404 && error?.data?.reason === "unknown_server") count(kind, "rejected_as_expected");
  else unexpected(kind, `unknown server: ${describe(answer)}`);
}

async function malformed(kind, session) {
  count(kind, "requests");
  const answer = await exchange("POST", "/mcp/soak", { body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{', session });
  const error = answer.messages?.[0]?.error;
  if (answer.status === 400 && error?.code === -32700) count(kind, "rejected_as_expected");
  else unexpected(kind, `malformed body: ${describe(answer)}`);
}

// runs task() every periodMs (scaled), at most maxInFlight at once (a tick that finds them all busy is skipped and
// counted), until the soak stops
function every(kind, periodMs, maxInFlight, task) {
  let running = 0;
  let n = 0;
  const period = periodMs / scale;
  return (async () => {
    let next = Date.now();
    while (!stopping) {
      if (running < maxInFlight) {
        running++;
        const job = task(n++).catch((error) => unexpected(kind, `driver: ${error?.stack ?? error}`)).finally(() => {
          running--;
          inFlight.delete(job);
        });
        inFlight.add(job);
      } else count(kind, "skipped_busy");
      next += period;
      await sleep(Math.max(0, next - Date.now()));
    }
  })();
}

// long-lived sessions for the steady calls, one per server
const pool = {};
for (const server of ["soak", "soak-sse"]) {
  pool[server] = await initialize("pool", server);
  if (!pool[server]) {
    console.error(`could not open a session on ${server}: ${JSON.stringify(samples)}`);
    process.exit(1);
  }
}
const flusher = setInterval(() => writeCounts(), 5000);
const loops = [
  every("json_call", 50, 50, () => echo("json_call", "soak", pool.soak)),
  every("sse_call", 500, 20, (n) => countdown("sse_call", "soak-sse", pool["soak-sse"], { drop: n % 5 === 4 })),
  every("session", 1000, 30, (n) => sessionLifecycle(n)),
  every("denied", 1000, 10, (n) => (n % 2 ? denied("denied", "soak", pool.soak) : denied("denied", "soak-sse", pool["soak-sse"]))),
  every("unknown_server", 1000, 10, () => unknownServer("unknown_server")),
  every("malformed", 1000, 10, () => malformed("malformed", pool.soak)),
  every("virtual", 5000, 5, () => virtualLifecycle()),
];
await sleep(durationMs);
stopping = true;
await Promise.all(loops);
await Promise.race([Promise.allSettled([...inFlight]), sleep(60000)]);
for (const server of Object.keys(pool)) await end("pool", server, pool[server]);
clearInterval(flusher);
writeCounts(true);
agent.destroy();
const totals = Object.values(counts).reduce((sum, c) => ({ requests: sum.requests + c.requests, unexpected: sum.unexpected + c.unexpected }), { requests: 0, unexpected: 0 });
console.error(`soak driver: ${totals.requests} requests, ${totals.unexpected} unexpected errors, ${inFlight.size} still in flight`);
process.exit(0);
