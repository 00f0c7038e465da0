// Starts the reference MCP server (@modelcontextprotocol/server-everything) in its legacy HTTP+SSE mode (GET /sse, POST /message?sessionId=…) on
// 127.0.0.1 only. The server calls app.listen(PORT), which binds every interface; every listen() in this process is
// made to name the loopback address instead. PORT (environment) chooses the port.
import http from "node:http";

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    const port = Number(args[0]);
    const rest = args.slice(1).filter((arg) => typeof arg === "function");
    return listen.call(this, port, "127.0.0.1", ...rest);
  }
  if (args[0] && typeof args[0] === "object" && !Array.isArray(args[0])) {
    return listen.call(this, { ...args[0], host: "127.0.0.1" }, ...args.slice(1));
  }
  return listen.apply(this, args);
};

process.argv[2] = "sse";
await import("@modelcontextprotocol/server-everything/dist/index.js");
