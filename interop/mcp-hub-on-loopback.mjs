// Starts mcp-hub (npm mcp-hub, pinned) on 127.0.0.1 serving the reference server over stdio, for the legacy HTTP+SSE
// bridge: mcp-hub's unified endpoint is GET /mcp (an event stream whose first event names /messages?sessionId=…).
// mcp-hub calls app.listen(port), which binds every interface; every listen() in this process is made to name the
// loopback address instead (loopback.mjs). Its state and config live under target/ (MCP_HUB_HOME), never in the user's home.
// PORT (environment) chooses the port.
import "./loopback.mjs";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const home = process.env.MCP_HUB_HOME ?? path.join(here, "..", "target", "mcp-hub-home");
fs.mkdirSync(home, { recursive: true });
process.env.XDG_STATE_HOME = path.join(home, "state");
process.env.XDG_CONFIG_HOME = path.join(home, "config");
process.env.XDG_DATA_HOME = path.join(home, "data");
process.env.XDG_CACHE_HOME = path.join(home, "cache");
process.env.HOME = home;

const config = path.join(home, "mcp-servers.json");
fs.writeFileSync(config, JSON.stringify({
  mcpServers: {
    everything: {
      command: process.execPath,
      args: [path.join(here, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
    },
  },
}));

process.argv = [process.argv[0], "mcp-hub", "--port", String(process.env.PORT ?? 37373), "--config", config];
await import("mcp-hub/dist/cli.js");
