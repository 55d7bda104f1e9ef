"""coder's HTTP client (coder.backends.runtime.http) against a real loopback ``http.server``."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from coder.backends.runtime import http


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.connections = 0
        self.paths: list[str] = []
        self.go_on = threading.Event()  # the chunked answer's second chunk waits for it

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.connections += 1
        self.answered = 0

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)
        self.answered += 1

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self._send(200, body, Content_Type=self.headers.get("Content-Type", ""))

    def do_GET(self) -> None:
        self.server.paths.append(self.path)
        if self.path == "/hang-up-on-second" and self.answered:
            self.close_connection = True  # the kept-alive connection dropped as the next request came in
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if self.path == "/close-after":
            self._send(200, b"bye")  # no "Connection: close": the client finds out when it reuses it
            self.close_connection = True
        elif self.path == "/missing":
            self._send(404, b'{"error": "no such thing"}', Content_Type="application/json")
        elif self.path == "/slow":
            time.sleep(1.0)
            self._send(200, b"late")
        elif self.path == "/chunked":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (b"data: one\n\ndata: t", b"wo\r", b"\n\n"):  # a line and a \r\n split across chunks
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.wfile.flush()
                if not self.server.go_on.wait(5):  # the client must see the first chunk before the rest is sent
                    return
                time.sleep(0.05)
            self.wfile.write(b"0\r\n\r\n")
            self.answered += 1
        elif self.path == "/short":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"only ten b")
            self.close_connection = True
        elif self.path == "/big":
            self._send(200, b"x" * 2**20)
        else:
            self._send(200, self.path.encode(), Content_Type="text/plain; charset=utf-8", X_Seen="yes")


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.go_on.set()
        srv.shutdown()
        srv.server_close()


def test_two_requests_share_one_kept_alive_connection(server: _Server) -> None:
    with http.make_client(server.url) as client:
        first, second = client.get("/a"), client.get("/b", params={"q": "1 2"})
    assert (first.text, second.text) == ("/a", "/b?q=1+2")
    assert first.headers["x-seen"] == first.headers.get("X-Seen") == "yes" and "CONTENT-TYPE" in first.headers
    assert server.connections == 1


def test_a_json_post_comes_back(server: _Server) -> None:
    with http.make_client(server.url + "/") as client:
        answer = client.post("/echo", json={"a": [1, "é"]})
    assert answer.is_success and answer.json() == {"a": [1, "é"]}
    assert answer.headers["content-type"] == "application/json"


def test_a_connection_the_server_closed_while_idle_is_replaced(server: _Server) -> None:
    with http.make_client(server.url) as client:
        assert client.get("/close-after").text == "bye"
        time.sleep(0.1)  # the server's close has landed
        assert client.get("/again").text == "/again"
    assert server.connections == 2


def test_a_request_the_kept_alive_connection_dropped_unanswered_is_sent_again(server: _Server) -> None:
    with http.make_client(server.url) as client:
        assert client.get("/hang-up-on-second").status_code == 200
        assert client.get("/hang-up-on-second").status_code == 200  # on a new connection: its first request
    assert server.connections == 2 and server.paths == ["/hang-up-on-second"] * 3


def test_a_chunked_stream_is_read_as_it_arrives(server: _Server) -> None:
    with http.make_client(server.url) as client, client.stream("GET", "/chunked") as response:
        lines = response.iter_lines()
        assert next(lines) == "data: one"  # the second chunk is not sent before this one was read
        server.go_on.set()
        assert list(lines) == ["", "data: two", ""]
        assert response.headers["transfer-encoding"] == "chunked"
    assert server.connections == 1


def test_closing_a_stream_early_closes_its_connection(server: _Server) -> None:
    with http.make_client(server.url) as client:
        with client.stream("GET", "/chunked") as response:
            assert next(response.iter_bytes()) == b"data: one\n\ndata: t"
        server.go_on.set()
        assert client.get("/after").text == "/after"
    assert server.connections == 2


def test_read_capped_reads_no_more_than_its_limit(server: _Server) -> None:
    with http.make_client(server.url) as client:
        with client.stream("GET", "/big") as response:
            assert http.read_capped(response, 10) == b"x" * 10
            rest = len(response.read())
        assert 0 < rest < 2**20 - 10 + 1 and rest == 2**20 - 10
        assert client.get("/b").text == "/b"  # the body read to its end: the connection was kept
    assert server.connections == 1


def test_a_slow_answer_is_a_read_timeout(server: _Server) -> None:
    with http.make_client(server.url, timeout=0.2) as client:
        began = time.monotonic()
        with pytest.raises(http.ReadTimeout) as err:
            client.get("/slow")
        assert time.monotonic() - began < 0.9
        assert isinstance(err.value, http.TimeoutException) and isinstance(err.value, http.HTTPError)
        assert client.get("/slow", timeout=5.0).text == "late"  # a per-request limit


def test_a_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with http.make_client(f"http://127.0.0.1:{port}") as client, pytest.raises(http.ConnectError) as err:
        client.get("/health")
    assert "Connection refused" in str(err.value) and "\n" not in str(err.value)


def test_a_body_cut_short_is_a_protocol_error(server: _Server) -> None:
    with http.make_client(server.url) as client, pytest.raises(http.RemoteProtocolError):
        client.get("/short")


def test_a_status_error_carries_its_response(server: _Server) -> None:
    with http.make_client(server.url) as client:
        response = client.get("/missing")
    assert response.status_code == 404 and not response.is_success
    with pytest.raises(http.HTTPStatusError) as err:
        response.raise_for_status()
    assert err.value.response is response and err.value.response.json() == {"error": "no such thing"}
    assert http.Response(200, content=b"ok").raise_for_status().text == "ok"


def test_one_shot_helpers_and_a_closed_client(server: _Server) -> None:
    assert http.get(server.url + "/x").text == "/x"
    assert http.post(server.url + "/y", content=b"raw").content == b"raw"
    client = http.make_client(server.url)
    client.close()
    assert client.is_closed
    with pytest.raises(RuntimeError):
        client.get("/z")
