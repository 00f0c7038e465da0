"""A client written with the official MCP Python SDK (package mcp, pinned in requirements.txt) that talks to the MCP
endpoint argv[1] in the era argv[2] names: "legacy" speaks session-era MCP (the initialize handshake, 2025-11-25),
"modern" asks for MCP 2026-07-28 (server/discover, no handshake, the envelope in each request's _meta; the SDK falls
back to the handshake only when discovery is refused: the transcript's protocolVersion says which it got). Used by the interop suite to drive
the relay's version bridge from a third SDK, in both directions, and the same server directly, so that the two
transcripts can be compared.

It exercises what the server offers: lists tools and calls those it knows (echo with a text that is not ASCII, add,
confirm and roots, which ask the client for input, ask-model, which asks for a completion), an unknown tool, then
prompts and resources when the server has them. The client answers every server request the same way in both eras
(an elicitation accepted with yes, a completion "hello from the model", the roots file:///work/a and file:///work/b):
a server request on its session in 2025, an input_required result the SDK fulfils and retries in 2026. Prints one
JSON transcript on stdout; a failure to connect is {"failed": ...}, exit 0.
"""

import asyncio
import json
import sys

import mcp_types as types
from mcp import Client

ENDPOINT = sys.argv[1]
ERA = sys.argv[2] if len(sys.argv) > 2 else "modern"

asked = []


async def sampling(context, params):
    message = params.messages[0].content if params.messages else None
    asked.append({"sampling": getattr(message, "text", None)})
    return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text",
                                     text="hello from the model"), model="interop-model")


async def elicitation(context, params):
    asked.append({"elicitation": params.message})
    return types.ElicitResult(action="accept", content={"yes": True})


async def roots(context):
    asked.append({"roots": True})
    return types.ListRootsResult(roots=[types.Root(uri="file:///work/a"), types.Root(uri="file:///work/b")])


def text_of(result):
    if getattr(result, "is_error", False):
        return {"isError": True, "text": result.content[0].text if result.content else None}
    content = getattr(result, "content", None)
    return content[0].text if content else json.dumps(result.model_dump(mode="json", by_alias=True))


async def outcome(call):
    try:
        return text_of(await call)
    except Exception as error:  # the transcript says what went wrong instead of stopping
        return {"error": str(error), "code": getattr(getattr(error, "error", None), "code", None)}


async def main():
    transcript = {}
    client = Client(ENDPOINT, mode="legacy" if ERA == "legacy" else "auto",
                    client_info=types.Implementation(name="mcp-relay-bridge-python", version="1.0.0"),
                    sampling_callback=sampling, elicitation_callback=elicitation, list_roots_callback=roots)
    try:
        await client.__aenter__()
    except BaseException as error:
        print(json.dumps({"failed": repr(error)}))
        return
    try:
        transcript["protocolVersion"] = client.protocol_version
        info = client.server_info
        transcript["serverName"] = info.name if info else None
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        transcript["tools"] = sorted(tools)
        if "echo" in tools:
            field = "text" if "text" in tools["echo"].input_schema.get("properties", {}) else "message"
            transcript["echo"] = await outcome(client.call_tool("echo", {field: "h\u00e9llo"}))
        if "add" in tools:
            transcript["add"] = await outcome(client.call_tool("add", {"a": 2, "b": 3}))
        if "confirm" in tools:
            transcript["confirm"] = await outcome(client.call_tool("confirm", {"action": "deploy"}))
        if "roots" in tools:
            transcript["roots"] = await outcome(client.call_tool("roots", {}))
        if "ask-model" in tools:
            transcript["askModel"] = await outcome(client.call_tool("ask-model", {}))
        transcript["unknownTool"] = await outcome(client.call_tool("no-such-tool", {}))
        capabilities = client.server_capabilities
        if capabilities.prompts is not None:
            prompts = sorted(prompt.name for prompt in (await client.list_prompts()).prompts)
            transcript["prompts"] = prompts
            if "greeting" in prompts:
                greeting = await client.get_prompt("greeting", {"name": "Ada"})
                transcript["greeting"] = greeting.messages[0].content.text
        if capabilities.resources is not None:
            resources = sorted(str(resource.uri) for resource in (await client.list_resources()).resources)
            transcript["resources"] = resources
            if "memo://one" in resources:
                memo = await client.read_resource("memo://one")
                transcript["memo"] = memo.contents[0].text
        transcript["asked"] = asked
    finally:
        await client.__aexit__(None, None, None)
    print(json.dumps(transcript))


asyncio.run(main())
