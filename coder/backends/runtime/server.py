"""A running inference server coder can talk to, managed or attached, and its HTTP API."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from coder.errors import CoderError
from coder.jsontypes import JSONObject
from coder.telemetry.metrics import SpecStats, parse_metrics

if TYPE_CHECKING:
    import httpx

    from coder.backends.runtime.chat import ChatClient


class Slot(TypedDict, total=False):
    """The ``/slots`` fields coder reads (llama.cpp sends many more)."""

    n_ctx: int
    speculative: bool
    speculative_types: str  # the spec-type chain, comma-separated (coder's build)
    is_processing: bool


@dataclass
class ServerInfo:
    """What coder knows about one server; persisted as JSON for managed ones."""

    url: str
    engine: str = "llama.cpp"
    api_key: str | None = None
    profile: str | None = None
    managed: bool = False
    pid: int | None = None
    pid_start: int | None = None  # kernel start time of ``pid``: who the server is (runtime/proc.py)
    argv: list[str] = field(default_factory=list)
    log_path: str | None = None
    model: str | None = None
    drafter: str | None = None
    spec_type: str | None = None
    k: int | None = None  # launch draft depth
    served_model: str | None = None  # the model id requests must name (``/v1/models``; vLLM/SGLang check it)
    k_max: int | None = None  # largest useful k for the drafter (block size bound)
    draft_cap: bool = False  # per-request ``speculative.n_max`` honoured (probed, not assumed)
    prediction: bool = False  # request field ``prediction`` drafted from (probed, not assumed)
    verified: bool | None = None  # speculator proven live; None = not checked yet
    # the one answer to "does this server compute on a GPU" (the adapter's, at launch): deep copy
    # drafts pay there, not on a CPU; an attached server coder cannot see into counts as a CPU one
    on_gpu: bool = False
    verdict: str = "not verified yet"
    build: JSONObject = field(default_factory=dict)

    def to_json(self) -> str:
        """The persisted form (``state_dir()/servers/NAME.json``)."""
        return json.dumps(asdict(self), indent=2)

    @classmethod
    def from_json(cls, text: str) -> ServerInfo:
        """Read a persisted record, ignoring fields this version does not know."""
        data = json.loads(text)
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

    def api(self, timeout: float = 10.0) -> ServerAPI:
        """A client for the non-OpenAI endpoints (close it, or use it as a context manager)."""
        return ServerAPI(self.url, self.api_key, self.engine, timeout)

    def chat(self, timeout: float = 600.0) -> ChatClient:
        """A streaming chat client carrying this engine's request extras."""
        from coder.backends.engines.base import adapter_for
        from coder.backends.runtime.chat import ChatClient

        return ChatClient(self.url, self.api_key, adapter_for(self.engine), timeout, model=self.served_model)

    def log_tail(self, lines: int = 20) -> list[str]:
        """The last ``lines`` lines of a managed server's log (empty when there is none)."""
        if not self.log_path or not Path(self.log_path).exists():
            return []
        return Path(self.log_path).read_text(errors="replace").splitlines()[-lines:]


class ServerAPI:
    """Thin httpx wrapper for the non-OpenAI endpoints (health, slots, metrics, tokenize)."""

    def __init__(self, url: str, api_key: str | None, engine: str = "llama.cpp", timeout: float = 10.0):
        self.url = url.rstrip("/")
        self.engine = engine
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        from coder.backends.runtime.http import make_client

        self._http = make_client(self.url, headers=headers, timeout=timeout)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> ServerAPI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, path: str) -> httpx.Response:
        """GET ``path``; unreachable servers raise a one-line CoderError."""
        import httpx  # already loaded by __init__

        try:
            return self._http.get(path)
        except httpx.HTTPError as exc:
            raise CoderError(f"backend at {self.url} unreachable: {exc}") from None

    def post(self, path: str, body: Mapping[str, object]) -> httpx.Response:
        """POST JSON ``body`` to ``path``; unreachable servers raise a one-line CoderError."""
        import httpx  # already loaded by __init__

        try:
            return self._http.post(path, json=body)
        except httpx.HTTPError as exc:
            raise CoderError(f"backend at {self.url} unreachable: {exc}") from None

    def health_status(self) -> int | None:
        """HTTP status of ``/health``; None when nothing answers."""
        import httpx  # already loaded by __init__

        try:
            return self._http.get("/health").status_code
        except httpx.HTTPError:
            return None

    def metrics_text(self) -> str:
        """The raw ``/metrics`` exposition text."""
        resp = self.get("/metrics")
        if resp.status_code != 200:
            raise CoderError(f"/metrics answered {resp.status_code}: {resp.text[:120]}")
        return resp.text

    def metrics(self) -> SpecStats:
        """The parsed ``/metrics`` counters."""
        return parse_metrics(self.metrics_text())

    def snapshot(self, wait_for: SpecStats | None = None, final_seen: bool = True) -> SpecStats | None:
        """A ``/metrics`` snapshot for a before/after delta, or None when there is none to take
        (no ``--metrics``, not a Prometheus page coder understands, or the server is gone).

        llama.cpp moves its counters when a request finishes; after a cancelled stream the
        slot may still be releasing, so with ``wait_for`` wait briefly for ``generated`` to move.
        """
        deadline = time.monotonic() + (0.2 if final_seen else 1.5)
        while True:
            try:
                snap = self.metrics()
            except CoderError:
                return None
            if snap.engine is None:
                return None
            if wait_for is None or snap.generated > wait_for.generated or time.monotonic() >= deadline:
                return snap
            time.sleep(0.05)

    def slots(self) -> list[Slot]:
        """The ``/slots`` list (llama.cpp)."""
        resp = self.get("/slots")
        if resp.status_code != 200:
            raise CoderError(f"/slots answered {resp.status_code}: {resp.text[:120]}")
        data = resp.json()
        return data if isinstance(data, list) else []

    def tokenize(self, text: str) -> int:
        """Exact token count of ``text`` by the server's own tokenizer."""
        resp = self.post("/tokenize", {"content": text, "add_special": False})
        if resp.status_code != 200:
            raise CoderError(f"/tokenize answered {resp.status_code}")
        return len(resp.json().get("tokens", []))

    def models(self) -> list[str]:
        """Model ids from ``/v1/models`` (empty when not answered)."""
        resp = self.get("/v1/models")
        if resp.status_code != 200:
            return []
        return [m.get("id", "") for m in resp.json().get("data", [])]
