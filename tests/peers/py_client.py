#!/usr/bin/env python3
"""Minimal MCP test client using the official Python SDK, PyPI `mcp` 2.x (`mcp.Client`).

Prints one JSON object per line on stdout; diagnostics go to stderr.

  python py_client.py --transport stdio [--mode auto|legacy] [opts] -- CMD [ARGS...]
  python py_client.py --transport http  [--mode auto|legacy] [opts] --url http://127.0.0.1:PORT/mcp

opts:
  --call NAME              tool to call once
  --args JSON              arguments object for --call (default {})
  --wait-list-changed S    after the call, wait up to S seconds for notifications/tools/list_changed
  --touch FILE             (with --wait-list-changed) append to FILE after the handler is live,
                           so the test itself triggers the server's reload
  --touch-text TEXT        what to append (default: a comment line)
  --timeout S              read timeout per request (default 30)

mode:
  legacy  = classic `initialize` handshake (what a 2025-11-25 server speaks).
  auto    = (SDK default) first sends `server/discover` at 2026-07-28; on any JSON-RPC error
            (e.g. -32601 method not found, or an HTTP 4xx) it falls back to `initialize`.
            A server that never answers `server/discover` stalls the connect for the SDK's
            DISCOVER_TIMEOUT_SECONDS (10 s) before the fallback: watch connect_ms.
            A server that closes the connection on a non-`initialize` first message makes
            auto fail outright ("Connection closed"); there is no fallback for that.

Exit code: 0 ok; 1 on failure (connect/RPC error, list_changed not received).
An isError tool result is not a failure: it is printed as {"isError": true, ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types.version import MODERN_PROTOCOL_VERSIONS


TOUCH_TEXT = ""


def touch(path: str | None) -> None:
    if path:
        with open(path, "a") as f:
            f.write(TOUCH_TEXT or f"# touched {time.time()}\n")


def out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


async def run(a: argparse.Namespace) -> int:
    list_changed = anyio.Event()
    notifications: list[str] = []

    # message_handler receives every server notification the session surfaces
    # (mcp_types.ServerNotification union) plus transport-level Exceptions.
    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            print(f"transport exception: {message!r}", file=sys.stderr)
            return
        method = getattr(message, "method", None)
        notifications.append(str(method))
        if method == "notifications/tools/list_changed":
            list_changed.set()

    if a.transport == "stdio":
        if not a.cmd:
            print("stdio needs: -- CMD [ARGS...]", file=sys.stderr)
            return 2
        # env is merged over get_default_environment() (HOME, PATH, ... only): pass through what the server needs.
        target: Any = StdioServerParameters(command=a.cmd[0], args=a.cmd[1:], env=dict(os.environ))
    else:
        target = a.url  # a str => Streamable HTTP client (streamable_http_client(url))

    client = Client(
        target,
        mode=a.mode,
        message_handler=on_message,
        read_timeout_seconds=a.timeout,
        cache=None,  # no client-side response cache: every list_tools hits the server
    )

    rc = 0
    t0 = time.perf_counter()
    try:
        async with client:
            connect_ms = (time.perf_counter() - t0) * 1000
            out(
                {
                    "event": "connected",
                    "connect_ms": round(connect_ms, 2),
                    "mode": a.mode,
                    "protocol_version": client.protocol_version,
                    "server": client.server_info.model_dump(mode="json") if client.server_info else None,
                    "capabilities": client.server_capabilities.model_dump(mode="json", by_alias=True, exclude_none=True),
                }
            )

            tools = await client.list_tools()
            out({"event": "tools", "names": [t.name for t in tools.tools]})

            if a.call:
                r = await client.call_tool(a.call, json.loads(a.args))
                out(
                    {
                        "event": "call",
                        "tool": a.call,
                        "isError": bool(r.is_error),
                        "content": [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in r.content],
                        "structuredContent": r.structured_content,
                    }
                )

            if a.wait_list_changed > 0:
                if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                    # 2026-07-28 (only reachable in mode=auto against a modern server): change
                    # notifications are delivered only on a subscriptions/listen stream.
                    ok, t1 = False, time.perf_counter()
                    async with client.listen(tools_list_changed=True) as sub:
                        touch(a.touch)
                        with anyio.move_on_after(a.wait_list_changed):
                            async for _event in sub:
                                ok = True
                                break
                else:
                    # 2025-11-25 and older: plain notification -> message_handler above.
                    t1 = time.perf_counter()
                    touch(a.touch)
                    with anyio.move_on_after(a.wait_list_changed):
                        await list_changed.wait()
                    ok = list_changed.is_set()
                out({"event": "list_changed", "received": ok, "after_ms": round((time.perf_counter() - t1) * 1000, 1)})
                if ok:
                    again = await client.list_tools()
                    out({"event": "tools", "names": [t.name for t in again.tools]})
                else:
                    rc = 1
    except Exception as e:  # noqa: BLE001 - a test driver reports everything
        # anyio task groups wrap failures in ExceptionGroup: report the leaf exceptions.
        leaves: list[BaseException] = []

        def flatten(x: BaseException) -> None:
            if isinstance(x, BaseExceptionGroup):
                for sub in x.exceptions:
                    flatten(sub)
            else:
                leaves.append(x)

        flatten(e)
        out({"event": "error", "errors": [{"type": type(x).__name__, "message": str(x)} for x in leaves]})
        rc = 1
    return rc


def main() -> int:
    argv = sys.argv[1:]
    cmd: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, cmd = argv[:i], argv[i + 1 :]
    p = argparse.ArgumentParser()
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--mode", choices=["auto", "legacy"], default="auto")
    p.add_argument("--url")
    p.add_argument("--call")
    p.add_argument("--args", default="{}")
    p.add_argument("--wait-list-changed", type=float, default=0)
    p.add_argument("--touch")
    p.add_argument("--touch-text", default="")
    p.add_argument("--timeout", type=float, default=30)
    a = p.parse_args(argv)
    a.cmd = cmd
    global TOUCH_TEXT
    TOUCH_TEXT = a.touch_text
    if a.transport == "http" and not a.url:
        p.error("--transport http needs --url")
    return anyio.run(run, a)


if __name__ == "__main__":
    sys.exit(main())
