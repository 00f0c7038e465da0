// A fast upstream MCP server for the benchmark, on 127.0.0.1:$PORT, Node's http module only:
//  POST /mcp   tools/call "echo"   -> a JSON answer at once (the request/response hot path);
//  POST /mcp   tools/call "stream" -> an SSE answer of `arguments.events` progress events of `arguments.size` bytes,
//                                     written as fast as the socket takes them, then the result;
//  POST /mcp   anything else       -> 202 for notifications, an empty result for requests;
//  GET  /mcp                       -> an SSE stream that stays open and quiet (": open" then nothing).
import http from "node:http";

const port = Number(process.env.PORT ?? 3001);

function sendStream(res, id, events, size) {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  const pad = "x".repeat(Math.max(0, size - 120));
  let i = 0;
  const writeMore = () => {
    while (i < events) {
      i++;
      const event = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":${i},"total":${events},"message":"${pad}"}}\n\n`;
      if (!res.write(event)) {
        res.once("drain", writeMore);
        return;
      }
    }
    res.end(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"streamed ${events}"}]}}\n\n`);
  };
  writeMore();
}

const server = http.createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    res.write(": open\n\n");
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const params = message.params ?? {};
    if (message.method === "tools/call" && params.name === "stream") {
      sendStream(res, message.id, params.arguments?.events ?? 1000, params.arguments?.size ?? 200);
      return;
    }
    const text = message.method === "tools/call" ? String(params.arguments?.message ?? "") : "";
    const body = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text }] } });
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 120000;
server.listen(port, "127.0.0.1", () => console.error(`fast upstream on 127.0.0.1:${port}`));
