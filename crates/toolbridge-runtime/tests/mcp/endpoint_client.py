"""Calls `endpoint` tools served by `toolbridge serve` with the official MCP Python SDK's
client, against a local HTTP server this script starts on 127.0.0.1: the path slot, the
query with the schema default, a header from the environment, a JSON body, structured
content from the outputSchema, and a non-2xx answer as an error result.
Run by crates/toolbridge-cli/tests/mcp.rs.

usage: endpoint_client.py --toolbridge TOOLBRIDGE --dir DIR --mode legacy|auto
Prints one line per check; exits non-zero (with the reason) on the first failure.
"""

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import anyio
from mcp import Client, StdioServerParameters

SEEN = []


class Weather(BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode() if not isinstance(body, str) else body.encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        SEEN.append(("GET", self.path, self.headers.get("authorization")))
        if self.path.startswith("/v1/weather/Paris"):
            self.answer(200, {"temperature": 21.5, "summary": "sunny"})
        else:
            self.answer(404, "  no such city  ")

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length))
        SEEN.append(("POST", self.path, body))
        self.answer(201, {"id": 7, "title": body["title"]})

    def log_message(self, *args):
        pass


def check(label, got, want):
    if got != want:
        sys.exit(f"{label}: expected {want!r}, got {got!r}")
    print(f"ok {label}")


def text_of(result):
    return "".join(block.text for block in result.content if block.type == "text")


def write_tools(folder, port):
    base = f"http://127.0.0.1:{port}"
    weather = {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            },
            "required": ["city"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"temperature": {"type": "number"}, "summary": {"type": "string"}},
        },
        "run": {
            "kind": "endpoint",
            "url": base + "/v1/weather/{city}",
            "method": "get",
            "argumentLocation": "query",
            "headers": {"Authorization": "Bearer ${TOOLBRIDGE_TEST_WEATHER_TOKEN}"},
            "timeout": 10,
        },
    }
    issue = {
        "name": "create_issue",
        "description": "Files an issue.",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "labels": {"type": "array", "items": {"type": "string"}}},
            "required": ["title"],
        },
        "run": {"kind": "endpoint", "url": base + "/issues", "method": "post", "argumentLocation": "body"},
    }
    for tool in (weather, issue):
        with open(os.path.join(folder, tool["name"] + ".json"), "w") as file:
            json.dump(tool, file)


async def run(args, port):
    env = dict(os.environ, TOOLBRIDGE_TEST_WEATHER_TOKEN="s3cret")
    server = StdioServerParameters(command=args.toolbridge, args=["serve", args.dir], env=env)
    async with Client(server, mode=args.mode, read_timeout_seconds=20) as client:
        listing = (await client.list_tools()).model_dump(mode="json", by_alias=True, exclude_none=True)
        check("names", [tool["name"] for tool in listing["tools"]], ["create_issue", "get_weather"])
        text = json.dumps(listing)
        for secret in ["127.0.0.1", "${", "Authorization", "endpoint"]:
            check(f"listing hides {secret}", secret in text, False)

        result = await client.call_tool("get_weather", {"city": "Paris, FR"})
        check("endpoint result", (result.structured_content, result.is_error),
              ({"temperature": 21.5, "summary": "sunny"}, False))
        check("path slot, query default and env header", SEEN[-1],
              ("GET", "/v1/weather/Paris%2C%20FR?unit=celsius", "Bearer s3cret"))

        result = await client.call_tool("get_weather", {"city": "Atlantis", "unit": "fahrenheit"})
        check("non-2xx", (text_of(result), result.is_error), ("HTTP 404 Not Found: no such city", True))
        check("query argument", SEEN[-1][1], "/v1/weather/Atlantis?unit=fahrenheit")

        result = await client.call_tool("create_issue", {"title": "Crash", "labels": ["bug", "p1"]})
        check("json body", (json.loads(text_of(result)), result.is_error), ({"id": 7, "title": "Crash"}, False))
        check("body sent", SEEN[-1], ("POST", "/issues", {"title": "Crash", "labels": ["bug", "p1"]}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--toolbridge", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--mode", required=True)
    args = parser.parse_args()
    http = ThreadingHTTPServer(("127.0.0.1", 0), Weather)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        write_tools(args.dir, http.server_address[1])
        anyio.run(run, args, http.server_address[1])
    finally:
        http.shutdown()


main()
