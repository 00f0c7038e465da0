-- wrk: POST one MCP tools/call per request in MCP 2026-07-28 form, as a client of that generation sends it: no session
-- and no initialize, the protocol version in the header and in the request's _meta with the client's capabilities and
-- name, and Mcp-Method and Mcp-Name saying what the body says.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "echo"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from wrk"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1.0.0"}}}}'
