"""``coder doctor``'s OpenAI API row when a server answers in another shape than the API's: one line,
naming the step, never the key. The server is the hostile_server TEST DOUBLE (coder/testing): a real
llama-server cannot be made to answer ``/v1/models`` with an HTML page."""

from __future__ import annotations

import pytest

from coder.backends.runtime.server import ServerInfo
from coder.doctor import openai_check
from coder.testing.hostile_server import hostile_server

KEY = "sk-local-secret-42"


@pytest.mark.parametrize(("scenario", "step"), [("models_html", "models.list()"),
                                                ("ok", "chat.completions.create()")])
def test_an_answer_of_another_shape_fails_the_row_in_one_line(scenario: str, step: str) -> None:
    # "ok" streams its reply even when asked for a plain completion: the client gets text, not a ChatCompletion
    with hostile_server(scenario) as server:
        row = openai_check(ServerInfo(url=server.url, api_key=KEY))
        assert "/v1/models" in server.hits
    assert row.ok is False
    assert step in row.detail and "not what the OpenAI API returns" in row.detail
    assert KEY not in row.detail and "\n" not in row.detail


def test_no_server_at_the_address_fails_the_row() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    row = openai_check(ServerInfo(url=f"http://127.0.0.1:{port}", api_key=KEY))
    assert row.ok is False and "APIConnectionError" in row.detail and KEY not in row.detail
