"""Capability probes of coder's own llama-server build: the per-request draft cap and the
prediction drafter, the check that every type of a launched chain was built, and what the
verification probe's timings say about the server's prefill and decode speed.

Each probe asks the server itself, never a version string. coder's draft-cap patch registers
``speculative.n_max`` with hard limits [0, INT32_MAX], so a request carrying ``-1`` is refused
with HTTP 400 naming the field; the prediction patch refuses a ``prediction`` of an unknown
type the same way. A stock build ignores unknown fields and runs the one-token completion
(HTTP 200), so only a 400 naming the field counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from coder.backends.engines.base import Check
from coder.backends.runtime.server import ServerAPI
from coder.spec_vocab import LLAMACPP_CAP_FIELD as REQUEST_FIELD
from coder.spec_vocab import LLAMACPP_PREDICTION_FIELD, types_of

# a draft cap below the patch's hard lower limit: only a build that knows the field rejects it
CAP_PROBE_VALUE = -1


def cap_probe_body() -> dict[str, object]:
    """The cheapest request that exercises the draft-cap field: one prompt token, no generation."""
    return {"prompt": "a", "n_predict": 1, "temperature": 0, "cache_prompt": False,
            REQUEST_FIELD: CAP_PROBE_VALUE}


def cap_probe_proves(status: int, text: str) -> bool:
    """True when a probe answer proves the field is parsed (a 400 that names it)."""
    return status == 400 and REQUEST_FIELD in text


def probe_draft_cap(api: ServerAPI) -> bool:
    """True when the server at ``api`` caps drafts per request via ``speculative.n_max``.

    Any other answer (200 from a stock build, 404, 401, 5xx) means "no cap": the
    restart fallback then works everywhere, so erring towards False is safe.
    """
    resp = api.post("/completion", cap_probe_body())
    return cap_probe_proves(resp.status_code, resp.text)


def prediction_probe_body() -> dict[str, object]:
    """A request whose ``prediction`` has a type coder's patch refuses (400 naming the field)."""
    return {"prompt": "a", "n_predict": 1, "temperature": 0, "cache_prompt": False,
            LLAMACPP_PREDICTION_FIELD: {"type": "coder-probe"}}


def probe_prediction(api: ServerAPI) -> bool:
    """True when the server at ``api`` drafts from a request's ``prediction`` (coder's patch).

    A stock llama-server ignores the field (HTTP 200), so only a 400 naming it counts.
    """
    resp = api.post("/completion", prediction_probe_body())
    return resp.status_code == 400 and LLAMACPP_PREDICTION_FIELD in resp.text


def chain_checks(spec_type: str | None, slots: Sequence[Mapping[str, object]]) -> list[Check]:
    """Every type of the launched chain built by the server (``speculative_types`` on coder's build)."""
    wanted = types_of(spec_type)
    built = {str(s["speculative_types"]) for s in slots if "speculative_types" in s}
    if not built:  # a stock build does not list them; the probe request still has to draft
        return []
    have = set(",".join(built).split(","))
    missing = [t for t in wanted if t not in have]
    return [Check("chain", not missing, f"server built {' / '.join(sorted(built))}"
                  + (f"; missing {','.join(missing)}" if missing else ""))]


MIN_PROBE_TOKENS = 32  # fewer tokens than this time the request's overhead, not the model


def probe_costs(timings: Mapping[str, object]) -> tuple[float | None, float | None]:
    """(prefill seconds per prompt token, decode tok/s) from a probe's ``timings``; None where too few tokens."""
    def rate(n_key: str, ms_key: str) -> tuple[float, float] | None:
        n, ms = timings.get(n_key), timings.get(ms_key)
        if isinstance(n, int | float) and isinstance(ms, int | float) and n >= MIN_PROBE_TOKENS and ms > 0:
            return float(n), float(ms) / 1000
        return None

    prefill, decode = rate("prompt_n", "prompt_ms"), rate("predicted_n", "predicted_ms")
    return (prefill[1] / prefill[0] if prefill else None), (decode[0] / decode[1] if decode else None)
