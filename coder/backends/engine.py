"""The contract every engine adapter (llama.cpp, vLLM, SGLang) fulfils for the manager."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from coder.backends.server import ServerAPI, ServerInfo
from coder.config import Profile


@dataclass
class Check:
    """One line of a verdict: what was checked, whether it passed, and why."""

    name: str
    ok: bool | None  # None = could not be checked (neither pass nor fail)
    detail: str = ""


@dataclass
class Verdict:
    """Whether the speculator is proven live on a launched server."""

    verified: bool
    checks: list[Check] = field(default_factory=list)

    @property
    def summary(self) -> str:
        if self.verified:
            return "speculator verified: " + "; ".join(c.detail for c in self.checks if c.ok and c.detail)
        failed = [c for c in self.checks if c.ok is False] or [c for c in self.checks if c.ok is None]
        return "NOT VERIFIED: " + "; ".join(f"{c.name}: {c.detail}" for c in failed)


class EngineAdapter(Protocol):
    """How the manager launches, waits for, and verifies one engine."""

    name: str

    def build_argv(self, profile: Profile, port: int, api_key: str) -> list[str]:
        """Full argv (binary first) binding 127.0.0.1:port with ``api_key``; raises CoderError if unsupported."""
        ...

    def ready(self, api: ServerAPI) -> bool:
        """True once the server answers requests (llama.cpp/SGLang: /health 200; vLLM: port open + 200)."""
        ...

    def verify(self, info: ServerInfo, api: ServerAPI, log_text: str) -> Verdict:
        """Prove the speculator is live: launch log lines, a probe request, counters moving."""
        ...
