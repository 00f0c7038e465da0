// Serves a web-standard fetch handler (the TypeScript SDK v2's createMcpHandler) over Node's http module on 127.0.0.1
// at PORT (from the environment): each request's body is read whole and handed on with an AbortSignal that fires when
// the client goes away; the answer's status and headers are sent at once (an event stream's before its first event),
// then its body as it comes. `before(req, res, body)`, when given, sees each request first and returns true when it
// answered it itself (a peer's own control endpoints, its counters).
import http from "node:http";

export function serveFetch(handler, before) {
  return http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    if (before && before(req, res, body)) return;
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers, body: ["GET", "HEAD"].includes(req.method) ? undefined : body, signal: controller.signal });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.flushHeaders();
    if (!response.body) { res.end(); return; }
    const reader = response.body.getReader();
    try { for (;;) { const { done, value } = await reader.read(); if (done) break; res.write(value); } } catch {}
    res.end();
  }).listen(Number(process.env.PORT), "127.0.0.1");
}
