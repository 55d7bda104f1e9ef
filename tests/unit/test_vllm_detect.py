"""detect_engine: the real llama-server (server marker), the fake vllm double, and bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from coder.backends.engines.detect import detect, detect_engine
from coder.backends.engines.vllm import VllmAdapter
from coder.config import Profile
from coder.errors import CoderError
from coder.testing import FAKE_VLLM


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def fake_vllm_url(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    p = Profile(name="d", engine="vllm", binary=str(FAKE_VLLM), model="m", spec_type="ngram", k=4)
    argv = VllmAdapter().build_argv(p, port, "key")
    with (tmp_path / "log").open("wb") as log:
        proc = subprocess.Popen([sys.executable, *argv], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        from coder.backends.runtime import http

        for _ in range(200):
            try:
                if http.get(url + "/health").status_code == 200:
                    break
            except http.HTTPError:
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_fake_vllm_detected_with_and_without_key(fake_vllm_url: str) -> None:
    found = detect(fake_vllm_url, "key")
    assert found.engine == "vllm" and "metric" in found.evidence
    # like vLLM, the double keeps /metrics open: the key is not needed to identify it
    assert detect_engine(fake_vllm_url + "/", None) == "vllm"


def test_tls_url_with_api_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """https, self-signed certificate: refused until its CA is trusted (SSL_CERT_FILE), then detected."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    port = free_port()
    p = Profile(name="tls", engine="vllm", binary=str(FAKE_VLLM), model="m", spec_type="ngram", k=4)
    env = {
        **os.environ,
        "FAKE_VLLM_TLS_CERT": str(cert),
        "FAKE_VLLM_TLS_KEY": str(key),
        "FAKE_VLLM_LOAD_DELAY": "0",
    }
    with (tmp_path / "log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, *VllmAdapter().build_argv(p, port, "key")],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"https://127.0.0.1:{port}"
    try:
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        for _ in range(200):
            if b"Application startup complete" in (tmp_path / "log").read_bytes():
                break
            time.sleep(0.05)
        assert detect_engine(url, "key") == "vllm"
        monkeypatch.delenv("SSL_CERT_FILE")
        with pytest.raises(CoderError) as err:
            detect_engine(url, "key")
        assert "CERTIFICATE_VERIFY_FAILED" in str(err.value) and "\n" not in str(err.value)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_unreachable_and_bad_urls() -> None:
    with pytest.raises(CoderError, match="cannot connect"):
        detect_engine(f"http://127.0.0.1:{free_port()}", None)
    with pytest.raises(CoderError, match="not an http"):
        detect_engine("localhost:8080", None)


@pytest.mark.server
def test_real_llama_server_detected(demo_server) -> None:  # type: ignore[no-untyped-def]
    found = detect(demo_server.url, demo_server.api_key)
    assert found.engine == "llama.cpp" and found.evidence == "metric names on /metrics"
    with pytest.raises(CoderError, match="rejected the API key"):
        detect(demo_server.url, "wrong-key")
