// A member MCP server for the virtual-server fan-out benchmark, on 127.0.0.1:$PORT, Node's http module only: every
// request is answered after DELAY_MS milliseconds, in JSON: initialize (with a session id), tools/list (TOOLS tools
// named t0..tN), anything else an empty result; notifications get 202.
import http from "node:http";

const port = Number(process.env.PORT ?? 3101);
const delay = Number(process.env.DELAY_MS ?? 100);
const count = Number(process.env.TOOLS ?? 20);
const tools = Array.from({ length: count }, (_, i) => ({
  name: `t${i}`,
  description: `tool ${i}`,
  inputSchema: { type: "object" },
}));

http
  .createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST") {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result =
        message.method === "initialize"
          ? { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "delayed", version: "1" } }
          : message.method === "tools/list"
            ? { tools }
            : {};
      setTimeout(() => {
        res.writeHead(200, { "Content-Type": "application/json", "Mcp-Session-Id": "bench-session" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      }, delay);
    });
  })
  .listen(port, "127.0.0.1");
