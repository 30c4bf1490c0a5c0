"""Drives `toolbridge serve` with the official MCP Python SDK's client (mcp, pinned in
crates/toolbridge/tests/sdk/requirements.txt): list, call every run kind, a rejection,
confirmation, and a reload after a file changes. Run by crates/toolbridge-cli/tests/mcp.rs.

usage: client.py (--stdio TOOLBRIDGE | --url URL) --dir DIR --mode legacy|auto
Prints one line per check; exits non-zero (with the reason) on the first failure.
"""

import argparse
import json
import os
import sys

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

EXPECTED_NAMES = ["greet", "set_language", "wipe_notes", "word_count"]
REJECTION = (
    "The call to `word_count` was rejected: 2 problems with its arguments.\n"
    "- missing required parameter `text` (string)\n"
    "- unknown parameter `txt` \u2014 did you mean `text`?\n"
    "Expected: word_count(text: string)"
)
LATER = {
    "name": "echo_later",
    "description": "Added while the server runs.",
    "inputSchema": {"type": "object", "properties": {"note": {"type": "string"}}},
    "run": {"kind": "context"},
}


def check(label, got, want):
    if got != want:
        sys.exit(f"{label}: expected {want!r}, got {got!r}")
    print(f"ok {label}")


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def text_of(result):
    return "".join(block.text for block in result.content if block.type == "text")


async def accept(context, params):
    assert "wipe_notes" in params.message, params.message
    return types.ElicitResult(action="accept", content={})


async def run(args):
    server = (
        StdioServerParameters(command=args.stdio, args=["serve", args.dir])
        if args.stdio
        else args.url
    )
    changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with Client(server, mode=args.mode, message_handler=on_message, read_timeout_seconds=20) as client:
        modern = client.protocol_version >= "2026-07-28"
        check("protocol", client.protocol_version, "2026-07-28" if args.mode == "auto" else "2025-11-25")
        listing = dump(await client.list_tools())
        check("names", [tool["name"] for tool in listing["tools"]], EXPECTED_NAMES)
        text = json.dumps(listing)
        for secret in ["dev.toolbridge", "python3", "word_count.py", '"run"', "fixedResult"]:
            check(f"listing hides {secret}", secret in text, False)
        tools = {tool["name"]: tool for tool in listing["tools"]}
        check("annotations", tools["set_language"]["annotations"],
              {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False})
        check("title", tools["set_language"]["title"], "Set the reply language")
        check("icons", tools["set_language"]["icons"],
              [{"src": "https://example.com/language.png", "mimeType": "image/png", "sizes": ["48x48"]}])
        check("output schema", tools["word_count"]["outputSchema"],
              {"type": "object", "properties": {"words": {"type": "integer"}}, "required": ["words"]})
        if modern:
            check("ttlMs", listing["ttlMs"], 10000)

        result = await client.call_tool("set_language", {"language": "fr"})
        check("context", (text_of(result), result.is_error, result.meta),
              ("The language is set.", False, {"dev.toolbridge/session": {"language": "fr"}}))
        result = await client.call_tool("greet", {"person": "Ada"})
        check("prompt", (text_of(result), result.is_error), ("Write a warm greeting for Ada.", False))
        result = await client.call_tool("word_count", {"text": "one two three"})
        check("command", (result.structured_content, result.is_error), ({"words": 3}, False))
        result = await client.call_tool("word_count", {"txt": 1})
        check("rejection", (text_of(result), result.is_error), (REJECTION, True))
        result = await client.call_tool("wipe_notes", {})
        check("confirm refused", (result.is_error, "cannot ask" in text_of(result)), (True, True))

        if modern:
            async with client.listen(tools_list_changed=True) as subscription:
                write_later(args.dir)
                with anyio.fail_after(15):
                    async for _event in subscription:
                        break
        else:
            write_later(args.dir)
            with anyio.fail_after(15):
                await changed.wait()
        print("ok list_changed")
        listing = dump(await client.list_tools(cache_mode="refresh"))
        check("names after the change", [tool["name"] for tool in listing["tools"]],
              ["echo_later", *EXPECTED_NAMES])

    async with Client(server, mode=args.mode, elicitation_callback=accept, read_timeout_seconds=20) as client:
        result = await client.call_tool("wipe_notes", {})
        check("confirm accepted", (text_of(result), result.is_error), ("All notes deleted.", False))


def write_later(folder):
    with open(os.path.join(folder, "echo_later.json"), "w") as file:
        json.dump(LATER, file)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stdio")
    parser.add_argument("--url")
    parser.add_argument("--dir", required=True)
    parser.add_argument("--mode", required=True)
    args = parser.parse_args()
    anyio.run(run, args)


main()
