"""SGLang: ``python -m sglang.launch_server`` argv, readiness, and speculator verification.

Unit trap (backends.md §3.1): ``--speculative-num-draft-tokens`` counts the anchor, so it is
k+1 where coder's k (vLLM's ``num_speculative_tokens``, llama.cpp's ``--spec-draft-n-max``) is
the number of drafted tokens. k stays the unit everywhere in coder; :func:`num_draft_tokens`
is the one place that converts.
"""

from __future__ import annotations

from pathlib import Path

from coder.backends.engines import logscan
from coder.backends.engines.base import Check, Verdict
from coder.backends.engines.script_common import ScriptEngineBase, all_passed, require_k, send_probe, spec_method
from coder.backends.runtime.server import ServerAPI, ServerInfo, answer_json
from coder.config import Profile
from coder.errors import CoderError

_ALGORITHMS = {"dflash": "DFLASH", "eagle3": "EAGLE3", "mtp": "EAGLE"}


def num_draft_tokens(k: int) -> int:
    """SGLang's verify width for k drafted tokens: the anchor plus k."""
    return k + 1


class SglangAdapter(ScriptEngineBase):
    """EngineAdapter for ``python -m sglang.launch_server``."""

    name = "sglang"

    def build_argv(self, profile: Profile, port: int, api_key: str, *, dry_run: bool = False,
                   key_file: str | None = None) -> list[str]:
        """argv for ``profile`` (the key goes on the command line: these engines read no key file)."""
        if not profile.model:
            raise CoderError(f"profile {profile.name!r} has no target model (--model)")
        binary = profile.binary or "python3"
        argv = [binary, "-m", "sglang.launch_server"] if Path(binary).name.startswith("python") else [binary]
        argv += ["--model-path", profile.model, "--host", profile.host or "127.0.0.1", "--port", str(port),
                 "--api-key", api_key, "--enable-metrics"]
        argv += self._spec_args(profile)
        if (ctx := profile.max_model_len or profile.ctx) is not None:
            argv += ["--context-length", str(ctx)]
        if profile.gpu_memory_utilization is not None:
            argv += ["--mem-fraction-static", str(profile.gpu_memory_utilization)]
        if profile.max_num_batched_tokens is not None:
            argv += ["--chunked-prefill-size", str(profile.max_num_batched_tokens)]
        if profile.tensor_parallel_size and profile.tensor_parallel_size > 1:
            argv += ["--tp-size", str(profile.tensor_parallel_size)]
        # SGLang's radix cache is on by default; enable_prefix_caching needs no flag
        return argv + list(profile.extra_args)

    @staticmethod
    def _spec_args(profile: Profile) -> list[str]:
        method = spec_method(profile.spec_type)
        if method is None:
            return []
        if method not in _ALGORITHMS:
            raise CoderError(f"coder does not build SGLang flags for spec type {profile.spec_type!r} "
                             "(dflash, eagle3, mtp); pass them yourself in extra_args with spec_type none")
        k = require_k(profile)
        args = ["--speculative-algorithm", _ALGORITHMS[method]]
        if method in ("dflash", "eagle3"):
            if not profile.drafter:
                raise CoderError(f"spec type {profile.spec_type!r} needs a drafter (--drafter)")
            args += ["--speculative-draft-model-path", profile.drafter]
        if method in ("eagle3", "mtp"):
            # a single chain (topk 1): k draft steps, k+1 verified tokens
            args += ["--speculative-num-steps", str(k), "--speculative-eagle-topk", "1"]
        return [*args, "--speculative-num-draft-tokens", str(num_draft_tokens(k))]

    def ready(self, api: ServerAPI) -> bool:
        # SGLang answers /health with 503 while starting
        """``/health`` answers 200."""
        return api.health_status() == 200

    def verify(self, info: ServerInfo, api: ServerAPI, log_text: str) -> Verdict:
        """Known log failures, a probe request, then an acceptance length above 1."""
        checks = [Check(f.line[:80], False, f.reason) for f in logscan.known_failures("sglang", log_text)]
        if checks:
            return Verdict(verified=False, checks=checks)
        checks.append(send_probe(api, info))
        if checks[-1].ok:
            checks.append(accept_length_check(api, log_text))
        return Verdict(verified=all_passed(checks, "accept length"), checks=checks)


def server_info_accept_length(api: ServerAPI) -> float | None:
    """``internal_states[0].avg_spec_accept_length`` from /server_info (or /get_server_info)."""
    for path in ("/server_info", "/get_server_info"):
        resp = api.get(path)
        if resp.status_code != 200:
            continue
        data = answer_json(f"{api.url}{path}", resp, dict)
        states = data.get("internal_states") if isinstance(data, dict) else None
        if isinstance(states, list) and states and isinstance(states[0], dict):
            value = states[0].get("avg_spec_accept_length")
            if isinstance(value, int | float):
                return float(value)
    return None


def accept_length_check(api: ServerAPI, log_text: str) -> Check:
    """Acceptance length > 1 from the gauge, /server_info, or the ``Decode batch … accept len`` line."""
    seen: list[str] = []
    gauge = api.metrics().accept_length_gauge
    if gauge is not None:
        seen.append(f"sglang:spec_accept_length {gauge:.2f}")
        if gauge > 1.0:
            return Check("accept length", True, seen[-1])
    cumulative = server_info_accept_length(api)
    if cumulative is not None:
        seen.append(f"avg_spec_accept_length {cumulative:.2f}")
        if cumulative > 1.0:
            return Check("accept length", True, seen[-1])
    lines = logscan.sglang_decode_lines(log_text)
    if lines:
        seen.append(f"log accept len {lines[-1].accept_len:.2f}")
        if lines[-1].accept_len > 1.0:
            return Check("accept length", True, seen[-1])
    if seen:
        return Check("accept length", False, "acceptance length not above 1 (" + "; ".join(seen) + ")")
    return Check("accept length", None, "no accept-length gauge, /server_info field or decode log line yet")
