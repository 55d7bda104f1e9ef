"""The contract every engine adapter (llama.cpp, vLLM, SGLang) fulfils.

Everything engine-specific sits behind this boundary: launch argv, readiness,
verification, request extras, how k is switched, what is probed after launch.
No module outside ``coder.backends`` compares engine names; it asks
:func:`coder.backends.engines.registry.adapter_for` and calls the adapter. This module
imports no adapter (the adapters import it), so the contract and the adapters form no circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from coder.backends.runtime.server import ServerAPI, ServerInfo
from coder.config import Profile

if TYPE_CHECKING:
    from coder.backends.engines.warm import WarmSender


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
        """One line for the user: what proved the speculator live, or what failed."""
        if self.verified:
            return "speculator verified: " + "; ".join(c.detail for c in self.checks if c.ok and c.detail)
        failed = [c for c in self.checks if c.ok is False] or [c for c in self.checks if c.ok is None]
        return "NOT VERIFIED: " + "; ".join(f"{c.name}: {c.detail}" for c in failed)


# How an engine switches k between requests: "cap" = a per-request field (coder's
# llama-server build, probed), "restart" = relaunch at the new launch k (managed
# stock servers), "launch" = k is fixed for the server's lifetime (attached ones).
KSwitch = Literal["cap", "restart", "launch"]


class EngineAdapter(Protocol):
    """How coder launches, waits for, verifies and talks to one engine."""

    name: str
    installable: bool  # coder can build this engine itself (binary and GGUF models checked locally)
    per_request_cache: bool  # a request can switch prompt caching off (cold prefill measurements)
    streams_draft_counters: bool  # running draft counters arrive in every chunk (the k controller learns)
    token_probes: bool  # /completion by token ids with output ids and n_probs (lossless divergence check)

    def build_argv(self, profile: Profile, port: int, api_key: str, *, dry_run: bool = False,
                   key_file: str | None = None) -> list[str]:
        """Full argv (binary first) binding 127.0.0.1:port with ``api_key``; raises CoderError if unsupported."""
        ...

    def k_max(self, profile: Profile) -> int | None:
        """Largest useful k for the profile's drafter (block-size bound), when it can be read."""
        ...

    def ready(self, api: ServerAPI) -> bool:
        """True once the server answers requests (llama.cpp/SGLang: /health 200; vLLM: port open + 200)."""
        ...

    def verify(self, info: ServerInfo, api: ServerAPI, log_text: str) -> Verdict:
        """Prove the speculator is live: launch log lines, a probe request, counters moving."""
        ...

    def describe(self, info: ServerInfo, api: ServerAPI) -> None:
        """Fill build details and probed capabilities (the per-request draft cap) into ``info``."""
        ...

    def check_attached(self, info: ServerInfo, api: ServerAPI) -> None:
        """Set ``verified``/``verdict``/``draft_cap`` for a server coder did not start."""
        ...

    def request_extras(self, *, k_cap: int | None, cache_prompt: bool | None,
                       progress: bool = False, prediction: str | None = None) -> dict[str, object]:
        """Engine-specific body fields for one streamed chat request."""
        ...

    def owns_process(self, info: ServerInfo) -> bool:
        """Whether the process ``info`` recorded at launch (pid + start time) still runs."""
        ...

    def runs_on_gpu(self, profile: Profile) -> bool:
        """Whether a server launched from ``profile`` computes on a GPU (``ServerInfo.on_gpu``)."""
        ...

    def warm_sender(self, info: ServerInfo) -> WarmSender:
        """How a warm-up prefix reaches this engine's prompt cache (:mod:`coder.backends.engines.warm`)."""
        ...

    def slot_count(self, api: ServerAPI) -> int | None:
        """Parallel request slots the server reports, when it reports them."""
        ...


def k_switch(info: ServerInfo) -> KSwitch:
    """How k can change on ``info`` without the user relaunching it by hand."""
    if info.draft_cap:
        return "cap"
    return "restart" if info.managed else "launch"
