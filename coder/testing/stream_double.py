"""**Test double**: a llama-server whose chat stream goes wrong part-way (junk, a stall, a kill).

:class:`HostileStreamDouble` replays a recorded real llama-server exchange (``/props``,
``/metrics``, ``/tokenize`` … and the first ``after`` events of the chat reply, framed as
llama-server frames them: HTTP/1.1 chunked ``text/event-stream``) and then misbehaves:

* ``junk``: a ``data:`` line that is not JSON;
* ``garbage``: bytes that are not server-sent events at all;
* ``stall``: nothing more, the connection held open (a hung server);
* ``kill``: the connection closed mid-body without the chunked terminator (what a killed
  server's socket looks like to the client);
* ``error``: an OpenAI-style ``{"error": …}`` event mid-reply.

It stands in for a broken server, which a real llama-server cannot be made into on demand.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler
from io import BufferedIOBase
from typing import Literal

from coder.jsontypes import JSONValue
from coder.testing.replay import Exchange, HttpRecording, ReplayServer, send_body

Fault = Literal["junk", "garbage", "stall", "kill", "error"]

_FAULTS: dict[str, bytes] = {
    "junk": b'data: {"choices": [{"delta": {"content": "x"\n\n',
    "garbage": b"\x1b]0;owned\x07<html><body>502 Bad Gateway</body></html>\n\n",
    "error": b'data: {"error": {"code": 500, "message": "slot crashed", "type": "server_error"}}\n\n',
}


# the /slots fields coder reads (coder.backends.runtime.server.Slot), as the recorded demo server had them
SLOT = {"id": 0, "n_ctx": 4096, "speculative": True, "speculative_types": "ngram-mod", "is_processing": False}


class HostileStreamDouble(ReplayServer):
    """**Test double**: replays ``recording`` but breaks the chat stream after ``after`` events."""

    def __init__(self, recording: HttpRecording, fault: Fault, *, after: int = 5) -> None:
        super().__init__(recording, rate=0.0, strict=False)
        self.fault = fault
        self.after = after
        self.released = threading.Event()  # set by close(): a stalled handler may return

    def close(self) -> None:
        """Stop serving (a stalled stream is released first)."""
        self.released.set()
        super().close()

    def _other(self, handler: BaseHTTPRequestHandler, method: str, path: str, body: JSONValue) -> None:
        if path == "/slots":  # `coder edit --attach` reads it; the TUI recordings never asked for it
            send_body(handler, 200, "application/json", json.dumps([SLOT]))
            return
        super()._other(handler, method, path, body)

    def _stream(self, handler: BaseHTTPRequestHandler, chat: Exchange) -> None:
        handler.protocol_version = "HTTP/1.1"  # chunked framing, as llama-server's cpp-httplib sends it
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        out = handler.wfile
        try:
            for _, data in chat.events[: self.after]:
                _chunk(out, f"data: {data}\n\n".encode())
            if self.fault == "stall":
                self.released.wait(120)
            elif self.fault == "kill":
                handler.connection.shutdown(socket.SHUT_RDWR)  # no terminating 0-length chunk
            else:
                _chunk(out, _FAULTS[self.fault])
                self.released.wait(120)  # junk never ends the stream itself: the client must
        except OSError:
            pass  # the client gave up (what the tests expect)
        handler.close_connection = True


def _chunk(out: BufferedIOBase, data: bytes) -> None:
    out.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
    out.flush()
