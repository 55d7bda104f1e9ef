"""A server that abuses sizes and time (the hostile_transport TEST DOUBLE): bounded memory, bounded waits."""

from __future__ import annotations

import time

import pytest

from coder.backends.engines.registry import adapter_for
from coder.backends.runtime import chat
from coder.backends.runtime.chat import ChatClient
from coder.backends.runtime.server import MAX_ANSWER_BYTES, ServerAPI
from coder.errors import CoderError
from coder.testing.hostile_transport import hostile_transport

READ_AT_MOST = 64 * 2**20  # socket buffers take a few MB the client never asked for; 300 MB is not that
MESSAGES = [{"role": "user", "content": "hi"}]


def _stream(url: str, *, idle: float = 30.0, max_tokens: int = 64) -> str:
    client = ChatClient(url, None, adapter_for("llama.cpp"), idle_timeout=idle)
    *_, reply = client.stream(MESSAGES, max_tokens=max_tokens)
    return str(reply)


@pytest.mark.parametrize("scenario", ["huge", "huge_declared"])
def test_a_300_mb_props_answer_is_not_read(scenario: str) -> None:
    with hostile_transport(scenario) as server, ServerAPI(server.url, None) as api:
        with pytest.raises(CoderError, match=f"more than {MAX_ANSWER_BYTES // 2**20} MiB") as err:
            api.props()
        assert server.sent < READ_AT_MOST
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(("scenario", "message"), [
    ("huge", "instead of an event stream"),
    ("huge_error", r"backend refused the request \(500\)"),
])
def test_a_200_mb_chat_answer_is_not_read(scenario: str, message: str) -> None:
    with hostile_transport(scenario, size=200 * 2**20) as server:
        with pytest.raises(CoderError, match=message):
            _stream(server.url)
        assert server.sent < READ_AT_MOST


def test_keepalive_comments_do_not_reset_the_idle_timer() -> None:
    with hostile_transport("keepalive", interval=0.2, hold=8.0) as server:
        start = time.monotonic()
        with pytest.raises(CoderError, match=r"no token for 1 s mid-reply"):
            _stream(server.url, idle=1.0)
    assert time.monotonic() - start < 6.0


def test_headers_that_never_come_end_in_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat, "HEADERS_S", 1.0)
    with hostile_transport("no_headers", hold=10.0) as server:
        start = time.monotonic()
        with pytest.raises(CoderError, match=r"backend did not answer within 1 s"):
            _stream(server.url)
    assert time.monotonic() - start < 6.0
    assert chat.headers_deadline([{"role": "user", "content": "x" * 30_000}]) > 200  # a long prompt: longer


def test_a_trickle_that_never_ends_meets_the_overall_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat, "HEADERS_S", 1.0)
    monkeypatch.setattr(chat, "FLOOR_DECODE_TPS", 10.0)
    with hostile_transport("trickle", interval=0.1, hold=10.0) as server:
        start = time.monotonic()
        with pytest.raises(CoderError, match=r"the reply took more than 2 s \(the deadline for 5 tokens"):
            _stream(server.url, max_tokens=5)
    assert time.monotonic() - start < 6.0


def test_a_flood_of_content_is_cut_at_the_tokens_asked_for() -> None:
    with hostile_transport("flood", hold=10.0) as server:
        with pytest.raises(CoderError, match=r"more than 5,120 characters for 8 tokens"):
            _stream(server.url, max_tokens=8)
        assert server.sent < READ_AT_MOST
