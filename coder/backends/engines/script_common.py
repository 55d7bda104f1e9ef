"""What the Python-launched engines (vLLM, SGLang) share: the adapter defaults and the probe helpers.

Both take coder's spec types through :data:`coder.spec_vocab.SERVED_METHODS`, need k at launch,
and prove a speculator with the same short chat probe; neither adapter imports the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coder.backends.engines.base import Check
from coder.backends.runtime import proc
from coder.backends.runtime.server import ServerAPI, ServerInfo
from coder.config import Profile
from coder.errors import CoderError
from coder.spec_vocab import SERVED_METHODS
from coder.textsafe import one_line

if TYPE_CHECKING:
    from coder.backends.engines.warm import WarmSender

# coder spec_type (llama.cpp names accepted too) -> the engines' speculative method
_METHODS = SERVED_METHODS
PROBE_PROMPT = "Repeat exactly, ten times, one per line: the quick brown fox jumps over the lazy dog."


def spec_method(spec_type: str | None) -> str | None:
    """The engine-neutral method for a profile's spec_type; None for no speculation."""
    if spec_type in (None, "", "none"):
        return None
    key = spec_type.lower()
    if key.startswith("ngram"):
        return "ngram"
    if key not in _METHODS:
        raise CoderError(f"spec type {spec_type!r} is not supported on vLLM/SGLang "
                         "(dflash, mtp, eagle3, dspark, ngram)")
    return _METHODS[key]


def require_k(profile: Profile) -> int:
    """The profile's k, or a one-line CoderError when a speculative profile lacks it."""
    if profile.k is None or profile.k < 1:
        raise CoderError(f"profile {profile.name!r}: set k (draft tokens per step, ≥ 1) for {profile.engine}")
    return profile.k


def all_passed(checks: list[Check], *required: str) -> bool:
    """No check failed and every ``required`` check passed."""
    if any(c.ok is False for c in checks):
        return False
    passed = {c.name for c in checks if c.ok is True}
    return all(r in passed for r in required)


def send_probe(api: ServerAPI, info: ServerInfo) -> Check:
    """One short, repetitive chat request (every speculator drafts on it)."""
    models = api.models()
    body = {
        "model": models[0] if models else (info.model or "default"),
        "messages": [{"role": "user", "content": PROBE_PROMPT}],
        "max_tokens": 96,
        "temperature": 0,
    }
    resp = api.post("/v1/chat/completions", body)
    if resp.status_code != 200:
        return Check("probe", False, f"probe request answered {resp.status_code}: {one_line(resp.text, 120)}")
    return Check("probe", True, "probe request answered")



class ScriptEngineBase:
    """Defaults shared by the Python-launched engines (vLLM, SGLang): no per-request extras,
    no probed cap, k fixed at launch, acceptance from ``/metrics`` only."""

    installable = False
    per_request_cache = False  # no per-request cache switch: bench makes prefixes unique instead
    streams_draft_counters = False
    token_probes = False  # no llama.cpp-style /completion: the lossless check compares text only

    def k_max(self, profile: Profile) -> int | None:
        """Not read from the drafter here: the engine validates k itself at launch."""
        return None

    def describe(self, info: ServerInfo, api: ServerAPI) -> None:
        """The served model's id (requests must name it); no per-request draft cap to probe."""
        info.draft_cap = False
        info.served_model = _first_model(api)

    def check_attached(self, info: ServerInfo, api: ServerAPI) -> None:
        """Acceptance is proven only once spec-decode counters move; say whether they exist."""
        info.served_model = _first_model(api)
        stats = api.metrics()
        info.verified = None
        info.verdict = ("spec-decode metrics exported; acceptance proven once counters move"
                        if stats.has_spec_metrics else "NOT VERIFIED: no spec-decode metrics exported")

    def request_extras(self, *, k_cap: int | None, cache_prompt: bool | None,
                       progress: bool = False, prediction: str | None = None) -> dict[str, object]:
        """No engine-specific fields (a k cap is never sent: see :func:`k_switch`; nor a prediction:
        ``ServerInfo.prediction`` is never set for these engines)."""
        return {}

    def slot_count(self, api: ServerAPI) -> int | None:
        """Not reported."""
        return None

    def owns_process(self, info: ServerInfo) -> bool:
        """The launched process, by pid and start time: ``python -m``, a venv shim or a wrapper
        that execs the engine all keep both, whatever their command line says."""
        return proc.is_running(info.pid, info.pid_start)

    def runs_on_gpu(self, profile: Profile) -> bool:
        """vLLM and SGLang serve on GPUs."""
        return True

    def warm_sender(self, info: ServerInfo) -> WarmSender:
        """A one-token chat request of the prefix: automatic prefix caching keeps its tokens."""
        from coder.backends.engines.warm import ChatWarmSender

        return ChatWarmSender(info, self)


def _first_model(api: ServerAPI) -> str | None:
    """The id of the (one) model a server serves, or None when ``/v1/models`` does not say."""
    try:
        models = api.models()
    except (CoderError, ValueError, AttributeError):
        return None
    return models[0] if models and models[0] else None
