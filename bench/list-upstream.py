#!/usr/bin/env python3
"""bench/list-upstream.py PORT: answers the lists the relay asks for itself, for bench/cost.sh.

The static nginx upstream answers every call with one fixed body, which cannot carry the id of a request it never
reads. The relay lists a server's tools itself (its own ids, "mcp-relay-tools-N") where a tool list or a policy reads
what a call names, and refuses a tool the server did not list as unknown: so the nginx upstream hands the relay's own
list requests (told apart by their size) to this server, which answers them with the benchmark's tools under the
request's id. It is asked once per list the relay keeps, never per measured call.
"""
import http.server
import json
import sys

TOOLS = [{"name": name, "description": f"the benchmark's {name}",
          "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}}
         for name in ("echo", "search", "get")]
ITEMS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
         "resources/templates/list": "resourceTemplates"}


class Lists(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        field = ITEMS.get(request.get("method"))
        if field is None:
            answer = {"jsonrpc": "2.0", "id": request.get("id"),
                      "error": {"code": -32601, "message": "list-upstream answers lists only"}}
        else:
            answer = {"jsonrpc": "2.0", "id": request.get("id"),
                      "result": {field: TOOLS if field == "tools" else []}}
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Lists).serve_forever()
