"""An MCP server from the official Python SDK that refuses any request without the expected
Authorization header: over HTTP+SSE (the 2024-11-05 transport, `--transport sse`) or Streamable
HTTP (`--transport http`). It binds 127.0.0.1 port 0 and prints `PORT <n>` once it listens, so a
test can point a client config at it (tests/integration/client_configs.rs)."""

import argparse
import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["sse", "http"], required=True)
    parser.add_argument("--expect", required=True, help="the Authorization header value to require")
    args = parser.parse_args()

    server = MCPServer("header-checked")

    @server.tool()
    def lookup_order(order_id: str) -> str:
        """Look up an order by its id and return its status."""
        return f"order {order_id}: shipped"

    app = server.sse_app() if args.transport == "sse" else server.streamable_http_app()

    async def checked(scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization", b"").decode() != args.expect:
                await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
                await send({"type": "http.response.body", "body": b"missing or wrong Authorization"})
                return
        await app(scope, receive, send)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(checked, log_level="warning", lifespan="on")
    # The Streamable HTTP app's session manager starts in its lifespan: pass it through.
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
