#!/usr/bin/env python3
"""The HTTP server StashREST's tests run against, on 127.0.0.1.

Started once by the tests (TestServer.swift) and shared by them: each test's paths start
with /t/<test id>/, which keeps its requests and counters apart. Listens on two ports, the
second for "another origin" (both log to the same test's requests); prints them on the
first line of standard output, then serves until the test process is gone. Standard
library only.

Routes (query parameters in brackets):
  /scenario/<name>/<path>    a recorded octokit exchange from
                             <fixtures>/github/scenarios/<name>.json, matched by path and
                             query, with its status, headers (Link rewritten to this server)
                             and body
  /items [count, start, per_page, page, envelope, etag, cursor, bad, single]
                             generated items {"id", "title", "tags"}: a JSON array, or
                             {"data": [...], "next": url} with envelope=data; Link headers
                             when per_page is given; an ETag and 304s with etag=1; item
                             `bad` with a number for its title; with single=1, the
                             first item alone, as an object
  /flaky/<key> [fail, status]   `fail` times the status (500), then /items
  /limited/<key> [retry_after]  429 with Retry-After once, then /items
  /unavailable/<key> [date]     503 with an HTTP-date Retry-After once, then /items
  /status/<code>             that status with a GitHub-style error body
  /truncated                 a Content-Length longer than the body, then the connection closes
  /slow [delay]              headers, then the body after `delay` seconds
  /notes [count, start]      generated notes {"id", "title", "writtenAt"}
  /body [json, etag, type, delay]
                             `json` as the body, whatever it holds, with 200 and the
                             Content-Type `type` (JSON's by default); with etag=1, an ETag
                             made from `json`, and a 304 to a request that sends it; with
                             `delay`, after that many seconds
  /stall [delay, count]      nothing for `delay` seconds, then /items
  /html                      an HTML page with 200
  /endless                   a body that never ends; when the client hangs up, a request
                             /endless-closed?sent=<bytes> is logged
  /redirect-loop             a 302 to itself
  /redirect [to]             a 302 to `to`
  /cycle [page, pages]       two items a page, ids from 1000, with a Link to the next page
                             and from the last back to the first: a cycle
  /always304                 304 to every request, validators sent or not
  /typed [type]              /items' array served with the Content-Type `type`
  /trickle [count, every]    /items' array one byte at a time, `every` seconds apart
  /paged/<key> [pages, per_page, plain]
                             a paged API with an ETag per page (Link rel="next"); after
                             /paged/<key>/edit?page=N&title=T item titles on that page change
                             and so does its ETag; after /paged/<key>/bump every ETag changes,
                             the bodies do not; with plain=1, no ETag and never a 304
  /requests                  what was asked so far, this aside: [{"path", "headers"}]
  any route [touch]          also makes the file `touch` names (inside the temporary
                             directory, left as it is if there) as the request arrives: a
                             test's decode waits for it (RESTAskAheadTests)
  /api/...                   a REST API with writes (GET, POST, PATCH, DELETE): rest_api.py
"""

import email.utils
import hashlib

import rest_api
import json
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

FIXTURES = os.environ.get("STASH_FIXTURES", "")
COUNTERS = {}
EDITS = {}
REQUESTS = {}
LOCK = threading.Lock()


def count(key):
    with LOCK:
        COUNTERS[key] = COUNTERS.get(key, 0) + 1
        return COUNTERS[key]


def items(start, count, bad=None):
    made = [{"id": i, "title": "Item %d" % i, "tags": ["t%d" % (i % 3)]} for i in range(start, start + count)]
    for item in made:
        if item["id"] == bad:
            item["title"] = 900
    return made


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def base(self):
        return "http://127.0.0.1:%d%s" % (self.server.server_address[1], self.prefix)

    def send(self, status, body=b"", headers=None, content_type="application/json"):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        # One server serves every test: each test's paths start with /t/<its id>, which
        # keeps its requests and counters apart.
        self.prefix = ""
        self.test = ""
        path = self.path
        if path.startswith("/t/"):
            self.test = path.split("/")[2]
            self.prefix = "/t/" + self.test
            path = path[len(self.prefix):] or "/"
        self.path = path
        url = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        if url.path != "/requests":
            with LOCK:
                REQUESTS.setdefault(self.test, []).append(
                    {"path": path, "headers": {k.lower(): v for k, v in self.headers.items()}})
        if "touch" in query:
            # Only a new or empty file in the temporary directory the tests use.
            path = os.path.realpath(query["touch"])
            if not path.startswith(os.path.realpath(tempfile.gettempdir()) + os.sep):
                return self.send(400, {"message": "touch names a path outside the temporary directory"})
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        # Each segment as the client meant it: a percent-encoded "/" or ".." names an id.
        parts = [unquote(p) for p in url.path.split("/") if p]
        route = parts[0] if parts else ""
        handler = getattr(self, "route_" + route.replace("-", "_"), None)
        if handler is None:
            return self.send(404, {"message": "Not Found"})
        return handler(parts[1:], query, url)

    def do_POST(self):
        self.do_GET()

    do_PATCH = do_POST
    do_DELETE = do_POST

    def route_api(self, parts, query, url):
        return rest_api.handle(self, parts, query)

    def route_requests(self, parts, query, url):
        with LOCK:
            self.send(200, list(REQUESTS.get(self.test, [])))

    def route_scenario(self, parts, query, url):
        name = parts[0]
        wanted = "/" + "/".join(parts[1:]) + ("?" + url.query if url.query else "")
        with open(os.path.join(FIXTURES, "github", "scenarios", name + ".json")) as f:
            exchanges = json.load(f)
        for exchange in exchanges:
            if exchange["method"].upper() == "GET" and exchange["path"] == wanted:
                headers = {}
                for key, value in exchange["headers"].items():
                    if key.lower() in ("content-length", "transfer-encoding", "connection", "content-type"):
                        continue
                    if key.lower() == "link":
                        value = value.replace("https://api.github.com", self.base() + "/scenario/" + name)
                    headers[key] = value
                return self.send(exchange["status"], exchange["response"], headers)
        return self.send(404, {"message": "no recorded exchange for " + wanted})

    def route_items(self, parts, query, url):
        start = int(query.get("start", "1"))
        total = int(query.get("count", "10"))
        headers = {}
        if query.get("etag"):
            tag = '"items-%d-%d"' % (start, total)
            headers["ETag"] = tag
            headers["Last-Modified"] = "Wed, 21 Oct 2026 07:28:00 GMT"
            if self.headers.get("If-None-Match") == tag:
                return self.send(304, b"", headers, content_type=None)
        body = items(start, total, int(query["bad"]) if "bad" in query else None)
        if query.get("single"):
            return self.send(200, body[0], headers)
        if "per_page" in query:
            per_page = int(query["per_page"])
            page = int(query.get("page", "1"))
            pages = max(1, (total + per_page - 1) // per_page)
            body = items(start + (page - 1) * per_page, max(0, min(per_page, total - (page - 1) * per_page)))
            links = []
            link = self.base() + "/items?count=%d&start=%d&per_page=%d&page=%%d" % (total, start, per_page)
            if page < pages:
                links.append('<%s>; rel="next"' % (link % (page + 1)))
            links.append('<%s>; rel="last"' % (link % pages))
            headers["Link"] = ", ".join(links)
        if "cursor" in query:
            position = int(query["cursor"] or "0")
            body = items(start + position, min(3, total - position))
            following = position + 3
            envelope = {"data": body, "cursor": str(following) if following < total else None}
            return self.send(200, envelope, headers)
        if query.get("envelope") == "data":
            envelope = {"data": body, "meta": {"count": len(body)}}
            return self.send(200, envelope, headers)
        return self.send(200, body, headers)

    def route_flaky(self, parts, query, url):
        if count(self.test + "flaky/" + parts[0]) <= int(query.get("fail", "1")):
            return self.send(int(query.get("status", "500")), {"message": "try again"})
        return self.route_items([], query, url)

    def route_limited(self, parts, query, url):
        if count(self.test + "limited/" + parts[0]) == 1:
            return self.send(429, {"message": "slow down"}, {"Retry-After": query.get("retry_after", "1")})
        return self.route_items([], query, url)

    def route_unavailable(self, parts, query, url):
        if count(self.test + "unavailable/" + parts[0]) == 1:
            when = email.utils.formatdate(time.time() + float(query.get("after", "1")), usegmt=True)
            return self.send(503, {"message": "maintenance"}, {"Retry-After": when})
        return self.route_items([], query, url)

    def route_status(self, parts, query, url):
        code = int(parts[0])
        body = {
            "message": "Validation Failed",
            "errors": [{"resource": "Issue", "field": "title", "code": "missing_field"}],
            "documentation_url": "https://docs.github.com/rest",
        }
        return self.send(code, body)

    def route_truncated(self, parts, query, url):
        body = json.dumps(items(1, 50)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self.close_connection = True

    def route_slow(self, parts, query, url):
        body = json.dumps(items(1, 3)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        time.sleep(float(query.get("delay", "3")))
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def route_notes(self, parts, query, url):
        start = int(query.get("start", "1"))
        total = int(query.get("count", "10"))
        notes = [{"id": i, "title": "n%d" % i, "writtenAt": "2026-12-01T00:00:00Z"} for i in range(start, start + total)]
        return self.send(200, notes)

    def route_body(self, parts, query, url):
        body = query.get("json", "")
        if query.get("delay"):
            time.sleep(float(query["delay"]))
        headers = {}
        if query.get("etag"):
            tag = '"body-%s"' % hashlib.sha256(body.encode()).hexdigest()[:16]
            headers["ETag"] = tag
            if self.headers.get("If-None-Match") == tag:
                return self.send(304, b"", headers, content_type=None)
        return self.send(200, body, headers, content_type=query.get("type", "application/json"))

    def route_stall(self, parts, query, url):
        time.sleep(float(query.get("delay", "3")))
        return self.route_items([], query, url)

    def route_html(self, parts, query, url):
        return self.send(200, "<html><body>Not an API</body></html>", content_type="text/html; charset=utf-8")

    def route_endless(self, parts, query, url):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        chunk = b"[" + b'{"id": 1, "title": "again"},' * 4096
        sent = 0
        try:
            while True:
                self.wfile.write(chunk)
                sent += len(chunk)
                # About 100 MB/s, faster than most links. Unpaced, loopback's gigabyte a
                # second keeps FoundationNetworking's work queue so busy that a cancel took
                # up to 20 s to get through (the call itself fails at once either way).
                time.sleep(0.001)
        except OSError:
            pass
        self.close_connection = True
        # The client hung up: /requests shows how much it had been sent.
        with LOCK:
            REQUESTS.setdefault(self.test, []).append({"path": "/endless-closed?sent=%d" % sent, "headers": {}})

    def route_redirect_loop(self, parts, query, url):
        return self.send(302, b"", {"Location": self.base() + "/redirect-loop"})

    def route_cycle(self, parts, query, url):
        page = int(query.get("page", "1"))
        pages = int(query.get("pages", "3"))
        following = page % pages + 1
        link = '<%s/cycle?pages=%d&page=%d>; rel="next"' % (self.base(), pages, following)
        return self.send(200, items(1000 + 2 * (page - 1), 2), {"Link": link})

    def route_always304(self, parts, query, url):
        return self.send(304, b"", {"ETag": '"any"'}, content_type=None)

    def route_typed(self, parts, query, url):
        return self.send(200, items(1, int(query.get("count", "3"))), content_type=query.get("type", "text/plain"))

    def route_trickle(self, parts, query, url):
        body = json.dumps(items(1, int(query.get("count", "1")))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for i in range(len(body)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                time.sleep(float(query.get("every", "0.2")))
        except OSError:
            pass
        self.close_connection = True

    def route_paged(self, parts, query, url):
        key = self.test + "paged/" + parts[0]
        if len(parts) > 1 and parts[1] == "edit":
            with LOCK:
                EDITS.setdefault(key, {})[int(query.get("page", "1"))] = query.get("title", "edited")
            return self.send(200, {"edited": True})
        if len(parts) > 1 and parts[1] == "bump":
            with LOCK:
                EDITS.setdefault(key, {})["revision"] = EDITS.get(key, {}).get("revision", 0) + 1
            return self.send(200, {"bumped": True})
        pages = int(query.get("pages", "3"))
        per_page = int(query.get("per_page", "2"))
        page = int(query.get("page", "1"))
        with LOCK:
            edit = EDITS.get(key, {}).get(page)
            revision = EDITS.get(key, {}).get("revision", 0)
        body = items(1 + (page - 1) * per_page, per_page)
        if edit is not None:
            for item in body:
                item["title"] = "%s %d" % (edit, item["id"])
        tag = '"page-%d-%s"' % (page, edit or "") if revision == 0 else '"page-%d-%s-r%d"' % (page, edit or "", revision)
        plain = query.get("plain") == "1"
        headers = {} if plain else {"ETag": tag}
        if page < pages:
            headers["Link"] = '<%s/paged/%s?pages=%d&per_page=%d%s&page=%d>; rel="next"' % (
                self.base(), parts[0], pages, per_page, "&plain=1" if plain else "", page + 1)
        if not plain and self.headers.get("If-None-Match") == tag:
            return self.send(304, b"", headers, content_type=None)
        return self.send(200, body, headers)

    def route_scripted(self, parts, query, url):
        # /scripted/<name>/set?status=&body=&headers=<json>: what /scripted/<name> answers
        # from then on (any query); a stored ETag that the request sends as If-None-Match
        # gets a 304 with the stored headers (with bare304=1, the ETag alone: no Link).
        key = self.test + "scripted/" + parts[0]
        if len(parts) > 1 and parts[1] == "set":
            with LOCK:
                EDITS[key] = (int(query.get("status", "200")), query.get("body", ""),
                              json.loads(query.get("headers", "{}")), query.get("bare304") == "1")
            return self.send(200, {"set": True})
        with LOCK:
            scripted = EDITS.get(key)
        if scripted is None:
            return self.send(404, {"message": "nothing scripted for " + parts[0]})
        status, body, headers, bare304 = scripted
        tag = headers.get("ETag")
        if tag and self.headers.get("If-None-Match") == tag:
            return self.send(304, b"", {"ETag": tag} if bare304 else headers, content_type=None)
        return self.send(status, body, headers)

    def route_redirect(self, parts, query, url):
        return self.send(302, b"", {"Location": query["to"]})


def exit_with_parent():
    """Ends the server when the test process that started it is gone, however it went."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


class Server(ThreadingHTTPServer):
    # All the tests connect at once: socketserver's backlog of 5 overflowed, the kernel
    # dropped their SYNs, and clients waited out the retransmission backoff (runs stalled
    # for 95 s; netstat -s counted "SYNs to LISTEN sockets dropped").
    request_queue_size = 1024


def main():
    threading.Thread(target=exit_with_parent, daemon=True).start()
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    other = Server(("127.0.0.1", 0), Handler)
    other.daemon_threads = True
    threading.Thread(target=other.serve_forever, daemon=True).start()
    print(server.server_address[1], other.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
