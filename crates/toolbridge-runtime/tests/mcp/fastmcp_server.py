"""A small MCP server written with the Python SDK's FastMCP (named MCPServer since
mcp 2.0), for `toolbridge import` (crates/toolbridge-cli/tests/mcp.rs). Runs on stdio."""

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("arithmetic")


@server.tool(title="Add two numbers", annotations=ToolAnnotations(readOnlyHint=True))
def add(a: int, b: int = 1) -> int:
    """Add b to a."""
    return a + b


@server.tool()
def shout(text: str, times: int | None = None) -> str:
    """Repeat a text in capitals."""
    return text.upper() * (times or 1)


server.run()
