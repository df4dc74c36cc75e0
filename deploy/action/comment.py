#!/usr/bin/env python3
"""Step `comment` of action.yml: posts the gate's report on the pull request, or updates the one
it posted before, so a pull request carries ONE mcpick comment however often it is pushed to.
Only a comment by `COMMENT_AUTHOR` (the action's `comment-author`, by default the login of
`github.token`) is taken for the earlier one.

The comment is found by the hidden marker line its body opens with (`mcpick compare --format
markdown` writes it): the pull request's comments are listed page by page (GET
/repos/{repo}/issues/{number}/comments), the first whose body starts with the marker is updated
(PATCH /repos/{repo}/issues/comments/{id}), and with none a new one is posted (POST
/repos/{repo}/issues/{number}/comments). Python's standard library only; the token is masked and
never printed. A token that may not write (a pull request from a fork gets a read-only one) is a
notice, not a failure: the report is in the job summary all the same.
"""

import json
import os
import re
import sys
import urllib.error
import urllib.request

MARKER = "<!-- mcpick-report -->"
# GitHub refuses comment bodies over 65,536 characters.
MAX_BODY = 65536


class ApiError(Exception):
    def __init__(self, method, url, status, text):
        super().__init__(f"{method} {url}: HTTP {status}: {text[:300]}")
        self.status = status


def request(method, url, token, payload=None):
    """One REST call; returns (decoded JSON, the response's Link header)."""
    data = None if payload is None else json.dumps(payload).encode()
    headers = {
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "mcpick-action",
        "Authorization": f"Bearer {token}",
    }
    if data is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return json.load(response), response.headers.get("Link", "")
    except urllib.error.HTTPError as error:
        text = error.read().decode("utf-8", "replace").replace(token, "[REDACTED]")
        raise ApiError(method, url, error.code, text) from None


def next_page(link):
    """The URL of rel="next" in a Link header, or None."""
    for part in link.split(","):
        match = re.match(r'\s*<([^>]+)>\s*;\s*rel="next"', part)
        if match:
            return match.group(1)
    return None


def find_comment(api, repo, number, token, author):
    """The first comment `author` wrote that opens with the marker: a person's comment opening
    with it (a copy, a test) is never edited."""
    url = f"{api}/repos/{repo}/issues/{number}/comments?per_page=100"
    while url:
        comments, link = request("GET", url, token)
        for comment in comments:
            by = (comment.get("user") or {}).get("login")
            if by == author and (comment.get("body") or "").lstrip().startswith(MARKER):
                return comment
        url = next_page(link)
    return None


def set_output(name, value):
    path = os.environ.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{name}={value}\n")


def main():
    token = os.environ.get("MCPICK_GITHUB_TOKEN", "")
    if token:
        print(f"::add-mask::{token}", flush=True)
    else:
        print("::error::mcpick action: no token: the github-token input is empty")
        return 1
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    repo = os.environ["GITHUB_REPOSITORY"]
    with open(os.environ["GITHUB_EVENT_PATH"], encoding="utf-8") as file:
        event = json.load(file)
    number = (event.get("pull_request") or {}).get("number")
    if not number:
        print("::notice::mcpick action: not a pull request: no comment (the report is in the job summary)")
        return 0
    with open(os.environ["BODY_FILE"], encoding="utf-8") as file:
        body = file.read()
    if not body.startswith(MARKER):
        print(f"::error::mcpick action: the report does not open with {MARKER}; it could not be found again to update")
        return 1
    if len(body) > MAX_BODY:
        note = "\n\n… (cut to fit a comment: the whole report is in the job summary and the run folders)\n"
        body = body[: MAX_BODY - len(note)] + note

    fork = os.environ.get("FORK") == "true"
    try:
        author = os.environ.get("COMMENT_AUTHOR") or "github-actions[bot]"
        found = find_comment(api, repo, number, token, author)
        if found and found.get("body") == body:
            # Nothing measured changed: leave the comment (and its notification) alone.
            comment, action = found, "left unchanged"
        elif found:
            comment, _ = request("PATCH", f"{api}/repos/{repo}/issues/comments/{found['id']}", token, {"body": body})
            action = "updated"
        else:
            comment, _ = request("POST", f"{api}/repos/{repo}/issues/{number}/comments", token, {"body": body})
            action = "posted"
    except ApiError as error:
        if error.status in (401, 403, 404):
            level = "notice" if fork else "warning"
            why = ("a pull request from a fork gets a read-only token" if fork
                   else "give the job `permissions: pull-requests: write`")
            print(f"::{level}::mcpick action: cannot comment on #{number} ({error}); {why}. The report is in the job summary.")
            return 0
        # The comment is a courtesy: an API that fails must not take the gate's verdict with it.
        print(f"::warning::mcpick action: cannot comment on #{number} ({error}). The report is in the job summary.")
        return 0
    print(f"mcpick action: {action} comment {comment['id']} on #{number}: {comment.get('html_url', '')}")
    set_output("comment-id", comment["id"])
    set_output("comment-url", comment.get("html_url", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
