// Starts the reference MCP server (@modelcontextprotocol/server-everything) in its legacy HTTP+SSE mode (GET /sse, POST /message?sessionId=…) on
// 127.0.0.1 only. The server calls app.listen(PORT), which binds every interface; every listen() in this process is
// made to name the loopback address instead (loopback.mjs). PORT (environment) chooses the port.
import "./loopback.mjs";
process.argv[2] = "sse";
await import("@modelcontextprotocol/server-everything/dist/index.js");
