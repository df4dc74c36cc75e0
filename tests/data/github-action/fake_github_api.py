#!/usr/bin/env python3
"""A stand-in for GitHub's REST API with the three endpoints the action's comment step calls, for
tests/integration/github_action.rs. Serves on 127.0.0.1 at a port the system picks (printed as
`port N` on the first line of stdout) and records every call, one JSON object a line, in
STATE/calls.jsonl; the pull request's comments are kept in STATE/comments.json.

    fake_github_api.py STATE [--read-only] [--page-size N]

The token it accepts is $FAKE_GITHUB_TOKEN (anything else: 401). --read-only answers POST and
PATCH with 403, as GitHub does for a fork's pull request; --page-size caps a page of comments
(whatever per_page asks), so a listing takes several pages with Link headers, as GitHub's does.
"""

import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

STATE = sys.argv[1]
READ_ONLY = "--read-only" in sys.argv
PAGE_SIZE = int(sys.argv[sys.argv.index("--page-size") + 1]) if "--page-size" in sys.argv else 100
TOKEN = os.environ["FAKE_GITHUB_TOKEN"]
LOCK = threading.Lock()
COMMENTS_FILE = os.path.join(STATE, "comments.json")

LIST = re.compile(r"^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$")
ONE = re.compile(r"^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)$")


def load():
    with open(COMMENTS_FILE, encoding="utf-8") as file:
        return json.load(file)


def save(comments):
    with open(COMMENTS_FILE + ".tmp", "w", encoding="utf-8") as file:
        json.dump(comments, file, indent=1)
    os.replace(COMMENTS_FILE + ".tmp", COMMENTS_FILE)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, payload, headers=()):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def handle_call(self, method):
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        authorized = self.headers.get("Authorization") == f"Bearer {TOKEN}"
        with LOCK:
            with open(os.path.join(STATE, "calls.jsonl"), "a", encoding="utf-8") as log:
                log.write(json.dumps({"method": method, "path": url.path, "query": url.query,
                                      "body": body, "authorized": authorized,
                                      "accept": self.headers.get("Accept")}) + "\n")
            if not authorized:
                return self.reply(401, {"message": "Bad credentials"})
            comments = load()
            listing = LIST.match(url.path)
            one = ONE.match(url.path)
            if method == "GET" and listing:
                page = int(parse_qs(url.query).get("page", ["1"])[0])
                per_page = min(int(parse_qs(url.query).get("per_page", ["30"])[0]), PAGE_SIZE)
                number = int(listing.group(3))
                mine = [c for c in comments if c["issue"] == number]
                chunk = mine[(page - 1) * per_page: page * per_page]
                headers = []
                if page * per_page < len(mine):
                    base = f"http://{self.headers['Host']}{url.path}"
                    headers.append(("Link", f'<{base}?per_page={per_page}&page={page + 1}>; rel="next", '
                                            f'<{base}?per_page={per_page}&page=1>; rel="first"'))
                return self.reply(200, chunk, headers)
            if method == "POST" and listing:
                if READ_ONLY:
                    return self.reply(403, {"message": "Resource not accessible by integration"})
                new = {"id": 1000 + len(comments), "issue": int(listing.group(3)), "body": body["body"],
                       "user": {"login": "github-actions[bot]"},
                       "html_url": f"https://github.invalid/pr/{listing.group(3)}#c{1000 + len(comments)}"}
                comments.append(new)
                save(comments)
                return self.reply(201, new)
            if method == "PATCH" and one:
                if READ_ONLY:
                    return self.reply(403, {"message": "Resource not accessible by integration"})
                for comment in comments:
                    if comment["id"] == int(one.group(3)):
                        comment["body"] = body["body"]
                        save(comments)
                        return self.reply(200, comment)
                return self.reply(404, {"message": "Not Found"})
            return self.reply(404, {"message": f"no such endpoint: {method} {url.path}"})

    def do_GET(self):
        self.handle_call("GET")

    def do_POST(self):
        self.handle_call("POST")

    def do_PATCH(self):
        self.handle_call("PATCH")


if not os.path.exists(COMMENTS_FILE):
    save([])
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
