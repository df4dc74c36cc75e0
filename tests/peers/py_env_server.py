"""An MCP server from the official Python SDK, on stdio, that proves a variable reached it without
repeating it: its one tool's description says how many characters `$FS_TOKEN` has (0 when unset).
tests/integration/client_configs.rs starts it from a client config whose `env` fills the variable
with a canary secret, and checks the length arrived while the secret itself is written nowhere."""

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("env-reporter")
length = len(os.environ.get("FS_TOKEN", ""))


@server.tool(description=f"Report the token: this server was given a token of {length} characters.")
def report_token() -> str:
    return f"{length} characters"


if __name__ == "__main__":
    server.run("stdio")
