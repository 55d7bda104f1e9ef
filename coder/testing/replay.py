"""Recorded real server traffic: a recording proxy, and a loopback **test double** that replays it.

:class:`ReplayServer` is a **test double** of llama-server: an HTTP server on 127.0.0.1 that
answers with the responses a real llama-server gave when the recording was made
(``/v1/chat/completions`` SSE events with their timing, ``/metrics`` pages in call order,
``/tokenize``, ``/props``, ``/slots``, ``/health``). Everything on coder's side stays real: the
OpenAI client, the edit engine, the /metrics scrape, the k policy. Tests and
``scripts/dev/bench_tui.py`` use it where a live server would make results slow and
nondeterministic.

:class:`coder.testing.record.RecordingProxy` makes the recordings.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, Self, TypedDict

from coder.jsontypes import JSONObject, JSONValue, as_object

if TYPE_CHECKING:
    from coder.backends.runtime.server import ServerInfo

FORMAT = "coder-http-recording-1"
CHAT_PATH = "/v1/chat/completions"


class ExchangeJSON(TypedDict):
    """An exchange as stored in a recording file (:meth:`Exchange.to_dict`)."""

    method: str
    path: str
    status: NotRequired[int]
    content_type: NotRequired[str]
    body: NotRequired[JSONValue]
    events: NotRequired[list[list[float | str]]]  # [seconds after the request, data]
    text: NotRequired[str]


@dataclass
class Exchange:
    """One recorded request and the server's answer (SSE events with arrival times, or a body)."""

    method: str
    path: str
    body: JSONValue = None  # the JSON request body (None for GET)
    status: int = 200
    content_type: str = "application/json"
    text: str = ""  # the response body (non-streamed)
    events: list[tuple[float, str]] = field(default_factory=list)  # (seconds after the request, data)

    def to_dict(self) -> ExchangeJSON:
        """The JSON form stored in a recording file."""
        out: ExchangeJSON = {"method": self.method, "path": self.path, "status": self.status,
                               "content_type": self.content_type}
        if self.body is not None:
            out["body"] = self.body
        if self.events:
            out["events"] = [[round(t, 6), data] for t, data in self.events]
        else:
            out["text"] = self.text
        return out

    @classmethod
    def from_dict(cls, data: ExchangeJSON) -> Exchange:
        """Inverse of :meth:`to_dict`."""
        return cls(data["method"], data["path"], data.get("body"), int(data.get("status", 200)),
                   str(data.get("content_type", "application/json")), str(data.get("text", "")),
                   [(float(t), str(d)) for t, d in data.get("events", [])])

    @property
    def is_chat(self) -> bool:
        """A chat completion request (the ones replayed in order)."""
        return self.method == "POST" and self.path == CHAT_PATH


@dataclass
class HttpRecording:
    """Every exchange of one recorded session with a server, plus how it was made (``meta``)."""

    exchanges: list[Exchange] = field(default_factory=list)
    meta: JSONObject = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> HttpRecording:
        """Read a recording file written by :meth:`save`."""
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"{path.name}: not a {FORMAT} file")
        return cls([Exchange.from_dict(e) for e in data["exchanges"]], dict(data.get("meta", {})))

    def save(self, path: Path) -> None:
        """Write the recording as JSON (one exchange per line, so diffs stay readable)."""
        from coder.fsutil import atomic_write

        lines = [json.dumps(e.to_dict(), ensure_ascii=False) for e in self.exchanges]
        body = ",\n".join(lines)
        atomic_write(path, f'{{"format": "{FORMAT}", "meta": {json.dumps(self.meta, indent=1)},\n'
                           f'"exchanges": [\n{body}\n]}}\n')

    def server_info(self, url: str) -> ServerInfo:
        """A ServerInfo for the replay at ``url``, describing the recorded server (never managed)."""
        from coder.backends.runtime.server import ServerInfo

        known = set(ServerInfo.__dataclass_fields__)
        # the recorder wrote these from a real ServerInfo (ServerInfo.to_json), so they fit its fields
        fields: dict[str, Any] = {k: v for k, v in as_object(self.meta.get("server")).items() if k in known}
        return ServerInfo(url=url, **fields)

    @property
    def chats(self) -> list[Exchange]:
        """The chat completion exchanges, in the order they were made."""
        return [e for e in self.exchanges if e.is_chat]

    def reply_text(self, index: int = 0) -> str:
        """The assistant text of the ``index``-th recorded chat reply (tests assert on it)."""
        parts: list[str] = []
        for _, data in self.chats[index].events:
            for choice in _chunk(data).get("choices", []):
                parts.append((choice.get("delta") or {}).get("content") or "")
        return "".join(parts)

    def stretched(self, repeat: int) -> HttpRecording:
        """The same recording whose first chat reply repeats its content ``repeat`` times.

        Speculation counters in ``timings`` keep growing across the repeats, as one long reply
        would; benchmarks use it for streams longer than the recorded one.
        """
        chat = self.chats[0]
        content = [(t, d) for t, d in chat.events if _content(d)]
        tail = [(t, d) for t, d in chat.events if not _content(d)]
        span = content[-1][0] if content else 0.0
        last = dict(_chunk(content[-1][1]).get("timings") or {}) if content else {}

        def shifted(data: str, n: int) -> str:
            chunk = _chunk(data)
            timings = chunk.get("timings")
            if not chunk or not isinstance(timings, dict):
                return data
            for key in ("predicted_n", "draft_n", "draft_n_accepted"):
                if isinstance(timings.get(key), int):
                    timings[key] += n * int(last.get(key, 0))
            return json.dumps(chunk)

        events = [(t + n * span, shifted(d, n)) for n in range(repeat) for t, d in content]
        events += [(t + (repeat - 1) * span, shifted(d, repeat - 1)) for t, d in tail]
        stretched = Exchange(chat.method, chat.path, chat.body, chat.status, chat.content_type, "", events)
        others = [e for e in self.exchanges if not e.is_chat]
        return HttpRecording([*others, stretched], dict(self.meta, stretched=repeat))


    def with_chunk(self, old: str, new: str) -> HttpRecording:
        """The same recording whose first chat reply streams ``new`` where it first streamed the chunk ``old``.

        For a test that needs the recorded stream with one token changed (a reply the checks
        would now refuse, made acceptable); the test says so where it uses it.
        """
        chat = self.chats[0]
        events = list(chat.events)
        for i, (t, data) in enumerate(events):
            chunk = _chunk(data)
            deltas = [c.get("delta") or {} for c in chunk.get("choices", [])]
            if any(d.get("content") == old for d in deltas):
                next(d for d in deltas if d.get("content") == old)["content"] = new
                events[i] = (t, json.dumps(chunk))
                break
        else:
            raise ValueError(f"the recording streams no chunk {old!r}")
        changed = Exchange(chat.method, chat.path, chat.body, chat.status, chat.content_type, "", events)
        return HttpRecording([changed if e is chat else e for e in self.exchanges], dict(self.meta))


def _chunk(data: str) -> dict[str, Any]:
    if data.strip() == "[DONE]":
        return {}
    try:
        parsed = json.loads(data)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _content(data: str) -> bool:
    return any((c.get("delta") or {}).get("content") for c in _chunk(data).get("choices", []))


class _Handler(BaseHTTPRequestHandler):
    """Routes to the owning server's :meth:`_LoopbackServer.answer`."""

    server: _LoopbackServer
    # llama-server (cpp-httplib built with CPPHTTPLIB_TCP_NODELAY=1) and uvicorn send each event at once;
    # with Nagle on, an event written while the last is unacknowledged waits for the client's delayed
    # ACK (40 ms on Linux), so the double streamed in 40 ms bursts no real server makes
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request stderr lines."""

    def do_GET(self) -> None:
        """Answer a GET."""
        self.server.owner.answer(self, "GET", None)

    def do_POST(self) -> None:
        """Answer a POST with a JSON body."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self.server.owner.answer(self, "POST", body)


class _LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: LoopbackHTTP) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.owner = owner


class LoopbackHTTP:
    """A loopback HTTP server (127.0.0.1, a free port) in a daemon thread; a context manager."""

    def __init__(self) -> None:
        self._http = _LoopbackServer(self)
        self._thread = threading.Thread(target=self._http.serve_forever, name=type(self).__name__, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Self:
        """Start serving in the background."""
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port."""
        self._http.shutdown()
        self._http.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def answer(self, handler: BaseHTTPRequestHandler, method: str, body: JSONValue) -> None:
        """Answer one request (subclasses)."""
        raise NotImplementedError


def send_body(handler: BaseHTTPRequestHandler, status: int, content_type: str, text: str) -> None:
    """Answer with a whole body."""
    data = text.encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class ReplayServer(LoopbackHTTP):
    """**Test double** of a llama-server: replays an :class:`HttpRecording` on 127.0.0.1.

    Chat replies are served in recorded order; ``/metrics`` pages in call order (the last one
    repeats); any other request gets the first recorded answer to the same method, path and
    body, else 404. ``rate``: None keeps the recorded timing, 0 sends as fast as possible, a
    number re-paces content chunks evenly to that many per second.
    """

    def __init__(self, recording: HttpRecording, *, rate: float | None = 0.0, strict: bool = True,
                 cycle: bool = False) -> None:
        super().__init__()
        self.recording = recording
        self.rate = rate
        self.strict = strict
        self.requests: list[tuple[str, str, JSONValue]] = []  # what coder sent (tests inspect it)
        self._lock = threading.Lock()
        # cycle: the replies again from the first once used up (a soak sends the same edit 500 times)
        self._chats: Iterator[Exchange] = itertools.cycle(recording.chats) if cycle else iter(recording.chats)
        self._metrics = [e for e in recording.exchanges if e.path == "/metrics"]
        self._metrics_served = 0

    @property
    def chat_requests(self) -> list[JSONValue]:
        """The JSON bodies of the chat requests received so far."""
        return [body for method, path, body in self.requests if method == "POST" and path == CHAT_PATH]

    def answer(self, handler: BaseHTTPRequestHandler, method: str, body: JSONValue) -> None:
        """Serve the recorded answer to one request."""
        path = handler.path.split("?")[0]
        with self._lock:
            self.requests.append((method, path, body))
        if method == "POST" and path == CHAT_PATH:
            self._chat(handler, body)
        elif path == "/metrics":
            self._metrics_page(handler)
        else:
            self._other(handler, method, path, body)

    def _chat(self, handler: BaseHTTPRequestHandler, body: JSONValue) -> None:
        with self._lock:
            chat = next(self._chats, None)
        if chat is None:
            send_body(handler, 500, "application/json",
                  json.dumps({"error": {"message": "the recording has no more chat replies"}}))
            return
        sent = body.get("messages") if isinstance(body, Mapping) else None
        recorded = chat.body.get("messages") if isinstance(chat.body, Mapping) else None
        if self.strict and sent != recorded:
            # coder's prompt changed since the recording: its reply would be meaningless, so say so
            send_body(handler, 409, "application/json", json.dumps({"error": {
                "message": "the prompt differs from the recorded one: re-record with tests/data/ui/record.py"}}))
            return
        self._stream(handler, chat)

    def _metrics_page(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            index = min(self._metrics_served, len(self._metrics) - 1)
            self._metrics_served += 1
        if index < 0:
            send_body(handler, 501, "text/plain", "metrics not recorded")
            return
        page = self._metrics[index]
        send_body(handler, page.status, page.content_type, page.text)

    def _other(self, handler: BaseHTTPRequestHandler, method: str, path: str, body: JSONValue) -> None:
        for e in self.recording.exchanges:
            if e.method == method and e.path == path and e.body == body and not e.is_chat:
                send_body(handler, e.status, e.content_type, e.text)
                return
        if path == "/health":
            send_body(handler, 200, "application/json", '{"status": "ok"}')
            return
        send_body(handler, 404, "application/json", json.dumps({"error": {"message": f"{path} not recorded"}}))

    def _stream(self, handler: BaseHTTPRequestHandler, chat: Exchange) -> None:
        handler.send_response(chat.status)
        handler.send_header("Content-Type", chat.content_type)
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()  # HTTP/1.0 without a length: the body ends when the connection closes
        start = time.monotonic()
        sent = 0
        try:
            for at, data in chat.events:
                if self.rate is None:
                    due = at
                elif self.rate > 0:
                    due = sent / self.rate
                else:
                    due = 0.0
                wait = start + due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                handler.wfile.write(f"data: {data}\n\n".encode())
                handler.wfile.flush()
                sent += 1 if _content(data) else 0
        except (BrokenPipeError, ConnectionResetError):
            return  # the client stopped the stream (escape): nothing more to send


def main(argv: list[str] | None = None) -> int:
    """``python -m coder.testing.replay FILE [--rate R] [--stretch N]``: serve a recording until killed.

    Prints the URL on the first line of stdout (benchmarks run the double in its own process, so
    its CPU time is not counted as the TUI's).
    """
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("recording", type=Path)
    parser.add_argument("--rate", type=float, default=0.0, help="content chunks per second (0: at once)")
    parser.add_argument("--stretch", type=int, default=1, help="repeat the first reply's content N times")
    parser.add_argument("--loose", action="store_true", help="serve the reply whatever the prompt")
    parser.add_argument("--cycle", action="store_true", help="serve the replies again once used up")
    args = parser.parse_args(argv)
    recording = HttpRecording.load(args.recording)
    if args.stretch > 1:
        recording = recording.stretched(args.stretch)
    with ReplayServer(recording, rate=args.rate, strict=not args.loose, cycle=args.cycle) as server:
        print(server.url, flush=True)
        threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
