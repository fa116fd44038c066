"""A small REST API for the push tests (issue 19), served by server.py under /t/<test>/api/.

Each test has its own state: collections of objects by id, the answers given per
Idempotency-Key, faults to inject, and a log of the writes it received.

  GET    /api/<collection>             the objects, a JSON array
  GET    /api/<collection>/<id>        one object, with its ETag ("<version>")
  POST   /api/<collection>             makes an object from the body (which names its "id"):
                                       the server sets "number" (its own id), "created_at",
                                       "updated_at" and "version"; 201 with the object
  PATCH  /api/<collection>/<id>        sets the body's keys; If-Match must name the version
                                       when sent (412 otherwise); 200 with the object
  DELETE /api/<collection>/<id>        If-Match as for PATCH; 204
The collection "links" is numbered as linkding's bookmarks are: a POST names no id, the
server sets "id" to its own number, and /api/links/<number>/ is the item (slash or not).
Every write needs an Idempotency-Key: a key seen before with the same request answers the
first answer again without applying anything; with another request, 422 "key reused". A
"url" that does not start with http is a 422, and so is a "folder" the API does not hold.

  GET /api/_fault [kind, status, times, method]   the next `times` writes of `method`:
        kind=status: answered `status` (with Retry-After: 0 for 429 and 503), not applied
        kind=drop: applied, then the connection closed with no answer
        kind=cut: applied, then the connection closed in the middle of the answer
        kind=slow [delay]: applied, then answered after `delay` seconds
  GET /api/_edit [collection, id, key, value]      a change by someone else (a new version)
  GET /api/_log                                    the writes: method, path, key, if_match,
                                                   body and its length, status ("dropped"),
                                                   whether it applied a change (not a replay)
"""

import json
import threading
import time
from datetime import datetime, timezone

LOCK = threading.Lock()
NUMBERED = ("links",)
STATES = {}


def state(test):
    return STATES.setdefault(test, {"collections": {}, "answers": {}, "faults": [], "log": [], "number": 0})


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def etag(item):
    return '"%d"' % item["version"]


def handle(handler, parts, query):
    """Answers one request to /api/...; `parts` are the path's parts after "api". Decided
    under the lock, answered outside it (a slow answer holds up no other test)."""
    with LOCK:
        api = state(handler.test)
        if handler.command == "GET":
            return read(handler, api, parts, query)
        kind, status, answer, headers, delay = decide(handler, api, parts)
    if delay:
        time.sleep(delay)
    if kind == "drop":
        handler.close_connection = True
        return
    if kind == "cut":
        data = json.dumps(answer).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data[: len(data) // 2])
        handler.close_connection = True
        return
    if status == 204:
        return handler.send(204, b"", headers, content_type=None)
    return handler.send(status, answer, headers)


def decide(handler, api, parts):
    """One write: (kind, status, answer, headers, delay), with kind "send", "drop" or "cut"."""
    length = int(handler.headers.get("Content-Length") or 0)
    body = handler.rfile.read(length) if length else b""
    if len(body) < length:
        # The client went away in the middle of its body (a process killed while sending): an
        # HTTP server never hands such a request to the application, so it is not a write.
        return "drop", 400, {}, {}, 0
    key = handler.headers.get("Idempotency-Key")
    entry = {
        "method": handler.command,
        "path": "/".join(parts),
        "key": key,
        "if_match": handler.headers.get("If-Match"),
        "length": len(body),
        "body": body.decode("utf-8", "replace"),
        "applied": False,
    }
    api["log"].append(entry)
    fault = None
    for candidate in api["faults"]:
        if candidate["times"] > 0 and candidate["method"] in ("", handler.command):
            candidate["times"] -= 1
            fault = candidate
            break
    delay = fault["delay"] if fault and fault["kind"] == "slow" else 0
    if fault and fault["kind"] == "status":
        entry["status"] = fault["status"]
        headers = {"Retry-After": "0"} if fault["status"] in (429, 503) else {}
        return "send", fault["status"], {"message": "injected %d" % fault["status"]}, headers, 0
    fingerprint = [handler.command, "/".join(parts), body.decode("utf-8", "replace")]
    if not key:
        status, answer, headers = 400, {"message": "an Idempotency-Key is required"}, {}
    elif key in api["answers"]:
        first = api["answers"][key]
        if first["fingerprint"] != fingerprint:
            status, answer, headers = 422, {"message": "key reused with another request"}, {}
        else:
            status, answer, headers = first["status"], first["answer"], first["headers"]
    else:
        status, answer, headers = write(handler, api, parts, body)
        entry["applied"] = status < 300
        if status < 500:
            api["answers"][key] = {"fingerprint": fingerprint, "status": status, "answer": answer, "headers": headers}
    if fault and fault["kind"] == "drop":
        entry["status"] = "dropped"
        return "drop", status, answer, headers, 0
    entry["status"] = status
    if fault and fault["kind"] == "cut":
        return "cut", status, answer, headers, 0
    return "send", status, answer, headers, delay


def read(handler, api, parts, query):
    if parts == ["_fault"]:
        api["faults"].append({
            "kind": query.get("kind", "status"), "status": int(query.get("status", "500")),
            "times": int(query.get("times", "1")), "method": query.get("method", ""),
            "delay": float(query.get("delay", "0"))})
        return handler.send(200, {})
    if parts == ["_log"]:
        return handler.send(200, api["log"])
    if parts == ["_edit"]:
        item = api["collections"].get(query["collection"], {}).get(query["id"])
        if item is None:
            return handler.send(404, {"message": "no such object"})
        item[query["key"]] = query["value"]
        item["version"] += 1
        item["updated_at"] = now()
        return handler.send(200, item)
    collection = api["collections"].get(parts[0], {}) if parts else {}
    if len(parts) == 1:
        return handler.send(200, sorted(collection.values(), key=lambda item: item["number"]))
    if len(parts) == 2 and parts[1] in collection:
        item = collection[parts[1]]
        return handler.send(200, item, {"ETag": etag(item)})
    return handler.send(404, {"message": "Not Found"})


def write(handler, api, parts, body):
    """Applies one write: (status, answer, headers)."""
    try:
        values = json.loads(body) if body else {}
    except ValueError:
        return 400, {"message": "the body is no JSON"}, {}
    if not isinstance(values, dict):
        return 400, {"message": "the body is no JSON object"}, {}
    if "url" in values and not str(values["url"]).startswith("http"):
        return 422, {"message": "url: is not a URL"}, {}
    if values.get("folder") is not None and str(values["folder"]) not in api["collections"].get("folders", {}):
        return 422, {"message": "folder: no such folder"}, {}
    collection = api["collections"].setdefault(parts[0], {})
    if handler.command == "POST" and len(parts) == 1 and parts[0] in NUMBERED:
        api["number"] += 1
        stamp = now()
        item = dict(values)
        item.update({"id": api["number"], "number": api["number"], "created_at": stamp, "updated_at": stamp,
                     "version": 1})
        collection[str(api["number"])] = item
        return 201, item, {"ETag": etag(item)}
    if handler.command == "POST" and len(parts) == 1:
        if "id" not in values:
            return 422, {"message": "id: is required"}, {}
        if str(values["id"]) in collection:
            return 409, {"message": "id: is taken"}, {}
        api["number"] += 1
        stamp = now()
        item = dict(values)
        item.update({"number": api["number"], "created_at": stamp, "updated_at": stamp, "version": 1})
        collection[str(values["id"])] = item
        return 201, item, {"ETag": etag(item)}
    if len(parts) != 2 or parts[1] not in collection:
        return 404, {"message": "Not Found"}, {}
    item = collection[parts[1]]
    wanted = handler.headers.get("If-Match")
    if wanted is not None and wanted != etag(item):
        return 412, {"message": "changed since: version %d" % item["version"]}, {}
    if handler.command == "DELETE":
        del collection[parts[1]]
        return 204, None, {}
    for name, value in values.items():
        if name not in ("id", "number", "created_at", "version"):
            item[name] = value
    item["version"] += 1
    item["updated_at"] = now()
    return 200, item, {"ETag": etag(item)}
