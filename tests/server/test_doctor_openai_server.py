"""``coder doctor``'s OpenAI API row, on the real llama-server: the official ``openai`` client lists the
models and gets a 1-token chat completion; a wrong key fails the row with one line that never shows a key."""

from __future__ import annotations

from dataclasses import replace

import pytest

from coder.backends.runtime.server import ServerInfo
from coder.config import builtin_profiles
from coder.doctor import openai_check, run_checks

pytestmark = pytest.mark.server


def test_the_doctor_reports_the_official_client_against_the_running_server(demo_server: ServerInfo) -> None:
    rows = {c.name: c for c in run_checks(builtin_profiles()["demo"])}
    row = rows["OpenAI API"]
    assert row.ok is True, row.detail
    assert "models.list 1 model(s)" in row.detail and "chat completion of 1 token" in row.detail
    assert demo_server.api_key and demo_server.api_key not in row.detail


def test_a_wrong_key_fails_the_row_without_showing_either_key(demo_server: ServerInfo) -> None:
    wrong = "wrong-key-0123456789"
    row = openai_check(replace(demo_server, api_key=wrong))
    assert row.ok is False
    assert "models.list()" in row.detail and "401" in row.detail
    assert wrong not in row.detail and str(demo_server.api_key) not in row.detail
    assert "\n" not in row.detail
