"""Which engine serves a URL: llama.cpp, vLLM or SGLang, from its endpoints and metric names.

Evidence, strongest first: the metric-name prefix on ``/metrics`` (``llamacpp:``, ``vllm:``,
``sglang:``), then engine-specific endpoints: llama.cpp's ``/props`` (with ``build_info``),
SGLang's ``/server_info`` / ``/get_server_info``, vLLM's ``/version``. Works over https
(certificate checked) and with an API key (sent as a Bearer token).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coder.backends.runtime.http import ConnectError, HTTPError, Response, make_client
from coder.errors import CoderError
from coder.telemetry.metrics import PREFIXES


@dataclass(frozen=True)
class Detection:
    """What probing an unknown server found: its engine and the evidence."""

    engine: str
    evidence: str


def _json(resp: Response) -> Any:
    try:
        return resp.json()
    except ValueError:
        return None


def _metric_engine(text: str) -> str | None:
    counts = {engine: 0 for engine in PREFIXES.values()}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        for prefix, engine in PREFIXES.items():
            if line.startswith(prefix):
                counts[engine] += 1
    best = max(counts, key=lambda e: counts[e])
    return best if counts[best] else None


def detect(url: str, api_key: str | None = None, timeout: float = 10.0) -> Detection:
    """Identify the engine at ``url``; CoderError when unreachable, unauthorised or unknown."""
    if not url.startswith(("http://", "https://")):
        raise CoderError(f"not an http(s) URL: {url}")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    statuses: dict[str, int] = {}
    # no CA bundle parsed for a plain-http server (most are on loopback); an https one reads the trust
    # store as the environment names it now (SSL_CERT_FILE), so a CA trusted since is seen at once
    with make_client(url.rstrip("/"), headers=headers, timeout=timeout) as http:

        def get(path: str) -> Response | None:
            try:
                resp = http.get(path)
            except ConnectError as exc:
                raise CoderError(f"cannot connect to {url}: {exc}") from None
            except HTTPError as exc:
                raise CoderError(f"{url}{path}: {exc}") from None
            statuses[path] = resp.status_code
            return resp if resp.status_code == 200 else None

        def get_json(path: str) -> dict[str, Any] | None:
            resp = get(path)
            body = _json(resp) if resp is not None else None
            return body if isinstance(body, dict) else None

        if (resp := get("/metrics")) is not None and (engine := _metric_engine(resp.text)):
            return Detection(engine, "metric names on /metrics")
        if (props := get_json("/props")) is not None and "build_info" in props:
            return Detection("llama.cpp", f"/props build_info {props['build_info']}")
        for path in ("/server_info", "/get_server_info"):
            if get_json(path) is not None:
                return Detection("sglang", f"{path} answers")
        if (version := get_json("/version")) is not None and "version" in version:
            return Detection("vllm", f"/version {version['version']}")
    if statuses and all(code in (401, 403) for code in statuses.values()):
        raise CoderError(f"{url} rejected the API key (HTTP {next(iter(statuses.values()))}); pass --api-key")
    seen = ", ".join(f"{p} {c}" for p, c in statuses.items())
    raise CoderError(f"{url}: not a recognised llama.cpp, vLLM or SGLang server ({seen})")


def detect_engine(url: str, api_key: str | None = None) -> str:
    """``llama.cpp``, ``vllm`` or ``sglang`` for the server at ``url``."""
    return detect(url, api_key).engine
