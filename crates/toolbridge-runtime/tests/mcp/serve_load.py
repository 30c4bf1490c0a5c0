"""Load benchmark of `toolbridge serve --http` (not a timed test): N concurrent stateless
MCP 2026-07-28 `tools/call` requests on a context tool over 127.0.0.1, raw HTTP (httpx, which
the mcp SDK depends on). Asserts 0 protocol errors (every answer a 200 JSON-RPC result with
isError false) and prints the throughput and latency percentiles.

usage: serve_load.py TOOLBRIDGE TOOLS_DIR [N]   (scripts/bench-serve runs it on a release build)
"""

import asyncio
import json
import re
import subprocess
import sys
import time

import httpx

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "serve_load", "version": "1"},
}
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "set_language",
}


async def one(client, url, index):
    body = {"jsonrpc": "2.0", "id": index, "method": "tools/call",
            "params": {"name": "set_language", "arguments": {"language": "fr"}, "_meta": META}}
    start = time.perf_counter()
    response = await client.post(url, content=json.dumps(body), headers=HEADERS)
    elapsed = time.perf_counter() - start
    ok = response.status_code == 200
    if ok:
        answer = response.json()
        ok = answer.get("id") == index and answer.get("result", {}).get("isError") is False
    return ok, elapsed, None if ok else f"{response.status_code} {response.text[:200]}"


async def main(binary, folder, count):
    server = subprocess.Popen([binary, "serve", folder, "--http", "127.0.0.1:0", "--stateless",
                               "--max-calls", "256", "--no-reload"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            match = re.search(r"listening on (\S+)", server.stderr.readline())
            url = match and match.group(1)
        assert url, "the server did not start"
        limits = httpx.Limits(max_connections=count, max_keepalive_connections=count)
        async with httpx.AsyncClient(limits=limits, timeout=60) as client:
            await one(client, url, 0)  # warm up
            start = time.perf_counter()
            results = await asyncio.gather(*(one(client, url, index) for index in range(1, count + 1)))
            wall = time.perf_counter() - start
        errors = [error for ok, _, error in results if not ok]
        latencies = sorted(elapsed for _, elapsed, _ in results)
        pct = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000
        print(f"{count} concurrent tools/call: {len(errors)} protocol errors, {wall:.2f} s, "
              f"{count / wall:.0f} calls/s, p50 {pct(0.50):.1f} ms, p99 {pct(0.99):.1f} ms, max {latencies[-1] * 1000:.1f} ms")
        if errors:
            sys.exit(f"protocol errors, first: {errors[0]}")
    finally:
        server.kill()
        server.wait()


asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1000))
