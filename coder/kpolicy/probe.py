"""Runtime capability probe: does this llama-server honour a per-request draft cap?

Asked of the server itself, never inferred from a version string. coder's patch
registers ``speculative.n_max`` with hard limits [0, INT32_MAX], so a request
carrying ``-1`` is refused with HTTP 400 naming the field. A stock build ignores
unknown fields and just runs the (one-token) completion: HTTP 200.
"""

from __future__ import annotations

from coder.backends import prediction_patch
from coder.backends.draft_cap_patch import REQUEST_FIELD
from coder.backends.server import ServerAPI

# a value below the patch's hard lower limit: only a build that knows the field rejects it
PROBE_VALUE = -1


def probe_body() -> dict[str, object]:
    """The cheapest request that exercises the field: one prompt token, no generation."""
    return {"prompt": "a", "n_predict": 1, "temperature": 0, "cache_prompt": False,
            REQUEST_FIELD: PROBE_VALUE}


def interpret(status: int, text: str) -> bool:
    """True when a probe answer proves the field is parsed (a 400 that names it)."""
    return status == 400 and REQUEST_FIELD in text


def probe_draft_cap(api: ServerAPI) -> bool:
    """True when the server at ``api`` caps drafts per request via ``speculative.n_max``.

    Only llama.cpp can carry the patch; other engines are not asked. Any other
    answer (200 from a stock build, 404, 401, 5xx) means "no cap": the restart
    fallback then works everywhere, so erring towards False is safe.
    """
    if api.engine != "llama.cpp":
        return False
    resp = api.post("/completion", probe_body())
    return interpret(resp.status_code, resp.text)


def prediction_probe_body() -> dict[str, object]:
    """A request whose ``prediction`` has a type coder's patch refuses (400 naming the field)."""
    return {"prompt": "a", "n_predict": 1, "temperature": 0, "cache_prompt": False,
            prediction_patch.REQUEST_FIELD: {"type": "coder-probe"}}


def probe_prediction(api: ServerAPI) -> bool:
    """True when the server at ``api`` drafts from a request's ``prediction`` (coder's patch).

    A stock llama-server ignores the field (HTTP 200), so only a 400 naming it counts.
    """
    if api.engine != "llama.cpp":
        return False
    resp = api.post("/completion", prediction_probe_body())
    return resp.status_code == 400 and prediction_patch.REQUEST_FIELD in resp.text
