"""vLLM: ``vllm serve`` argv with ``--speculative-config``, readiness, and speculator verification.

k is coder's unit everywhere: it is vLLM's ``num_speculative_tokens`` unchanged. DFlash and
DFlash 2 share ``method: "dflash"``; vLLM picks the DFlash 2 speculator from the drafter's
``architectures`` and only on its V2 model runner (backends.md §2.1–§2.4).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from coder.backends.engines import logscan
from coder.backends.engines.base import Check, Verdict
from coder.backends.engines.preflight import tensor_parallel_problem
from coder.backends.engines.script_common import ScriptEngineBase, all_passed, require_k, send_probe, spec_method
from coder.backends.runtime.server import ServerAPI, ServerInfo
from coder.config import Profile
from coder.errors import CoderError
from coder.models.gguf_info import FAMILY_DFLASH2

NEEDS_DRAFTER = ("dflash", "eagle3", "dspark", "draft_model")


def drafter_family(drafter: str | None) -> str | None:
    """DFlash / DFlash 2 / DSpark / EAGLE3 from a local checkpoint's config, else None.

    A Hub id cannot be read here; one whose name says DFlash2 is taken at its word, so that an
    old build drafting it as DFlash 1 is still caught.
    """
    if not drafter:
        return None
    from coder.models.checkpoint import inspect_checkpoint

    try:
        return inspect_checkpoint(drafter).drafter_family
    except CoderError:
        return FAMILY_DFLASH2 if "dflash2" in drafter.lower().replace("-", "").replace("_", "") else None


def speculative_config(profile: Profile) -> dict[str, object] | None:
    """The ``--speculative-config`` JSON for the profile (None without speculation)."""
    method = spec_method(profile.spec_type)
    if method is None:
        return None
    cfg: dict[str, object] = {"method": method}
    if method in NEEDS_DRAFTER:
        if not profile.drafter:
            raise CoderError(f"spec type {profile.spec_type!r} needs a drafter (--drafter)")
        cfg["model"] = profile.drafter
    elif method == "mtp" and profile.drafter:
        cfg["model"] = profile.drafter
    cfg["num_speculative_tokens"] = require_k(profile)
    return cfg


class VllmAdapter(ScriptEngineBase):
    """EngineAdapter for ``vllm serve``."""

    name = "vllm"

    def build_argv(self, profile: Profile, port: int, api_key: str, *, dry_run: bool = False,
                   key_file: str | None = None) -> list[str]:
        """argv for ``profile`` (the key goes on the command line: these engines read no key file)."""
        if not profile.model:
            raise CoderError(f"profile {profile.name!r} has no target model (--model)")
        binary = profile.binary or "vllm"
        if Path(binary).name.startswith("python"):
            argv = [binary, "-m", "vllm.entrypoints.cli.main", "serve", profile.model]
        else:
            argv = [binary, "serve", profile.model]
        argv += ["--host", profile.host or "127.0.0.1", "--port", str(port), "--api-key", api_key]
        if (spec := speculative_config(profile)) is not None:
            argv += ["--speculative-config", json.dumps(spec, separators=(",", ":"))]
        if (ctx := profile.max_model_len or profile.ctx) is not None:
            argv += ["--max-model-len", str(ctx)]
        if profile.gpu_memory_utilization is not None:
            argv += ["--gpu-memory-utilization", str(profile.gpu_memory_utilization)]
        if profile.max_num_batched_tokens is not None:
            argv += ["--max-num-batched-tokens", str(profile.max_num_batched_tokens)]
        if profile.enable_prefix_caching:
            argv.append("--enable-prefix-caching")
        if profile.tensor_parallel_size and profile.tensor_parallel_size > 1:
            # refused here, before launch, in one line: vLLM itself fails only after minutes of start-up;
            # a dry run shows the argv whatever GPUs this machine has
            if problem := tensor_parallel_problem(profile.tensor_parallel_size, profile.model, os.environ,
                                                  count_gpus=not dry_run):
                raise CoderError(problem)
            argv += ["--tensor-parallel-size", str(profile.tensor_parallel_size)]
        return argv + list(profile.extra_args)

    def ready(self, api: ServerAPI) -> bool:
        # vLLM binds its port only after the engine is built: connection refused until then
        """``/health`` answers 200 (the port opens only once the engine is built)."""
        return api.health_status() == 200

    def verify(self, info: ServerInfo, api: ServerAPI, log_text: str) -> Verdict:
        """The SpeculativeConfig banner, the model-runner lines, then counters moving on a probe."""
        checks = [Check(f.line[:80], False, f.reason) for f in logscan.known_failures("vllm", log_text)]
        checks.append(_banner_check(log_text, spec_method(info.spec_type), info.k))
        checks += _runner_checks(log_text, drafter_family(info.drafter))
        if not any(c.ok is False for c in checks):
            checks.append(probe_counters(api, info))
        return Verdict(verified=all_passed(checks, "banner", "counters"), checks=checks)


def _banner_check(log_text: str, method: str | None, k: int | None) -> Check:
    banner = logscan.vllm_spec_config(log_text)
    if banner is None:
        return Check("banner", False, "no SpeculativeConfig(...) in the engine banner: "
                     "the engine started without a speculator")
    same_method = method is None or banner.method == method or (
        method == "mtp" and banner.method.endswith("_mtp"))  # deprecated model-specific MTP names
    same_k = k is None or banner.num_spec_tokens == k
    seen = f"SpeculativeConfig(method={banner.method}, num_spec_tokens={banner.num_spec_tokens})"
    if same_method and same_k:
        return Check("banner", True, seen)
    return Check("banner", False, f"{seen} but the profile asks method={method}, k={k}")


def _runner_checks(log_text: str, family: str | None) -> list[Check]:
    v2 = logscan.vllm_v2_runner(log_text)
    captured = logscan.vllm_captured_speculators(log_text)
    if family != FAMILY_DFLASH2 and "DFlash2" not in captured:
        return [Check("model runner", True, logscan.V2_RUNNER_LINE)] if v2 else []
    out: list[Check] = []
    if v2:
        out.append(Check("model runner", True, logscan.V2_RUNNER_LINE))
    else:
        fallback = logscan.vllm_v2_fallback(log_text)
        why = f" (V2 declined: {fallback})" if fallback else ""
        out.append(Check("model runner", False, "no 'Using V2 Model Runner': DFlash 2 runs only on the V2 "
                         f"runner; older builds drafted as DFlash 1 silently{why}"))
    if "DFlash2" in captured:
        out.append(Check("speculator", True, "Capturing model for DFlash2 speculator"))
    elif captured:
        out.append(Check("speculator", False, f"captured the {', '.join(captured)} speculator, not DFlash2: "
                         "the drafter runs as DFlash 1"))
    else:
        out.append(Check("speculator", None, "no 'Capturing model for DFlash2 speculator' line (no CUDA "
                         "graphs, e.g. --enforce-eager): DFlash 2 vs DFlash 1 not proven by the log"))
    return out


def probe_counters(api: ServerAPI, info: ServerInfo, settle: float = 3.0) -> Check:
    """Send the probe request and require the spec-decode counters to move."""
    try:
        before = api.metrics()
    except CoderError as exc:
        return Check("counters", False, f"/metrics unreadable: {exc}")
    if not before.has_spec_metrics:
        return Check("counters", False, "/metrics exports no spec_decode counters: speculation is off")
    probe = send_probe(api, info)
    if not probe.ok:
        return Check("counters", False, probe.detail)
    deadline = time.monotonic() + settle
    while True:  # counters reach the API process a moment after the response
        delta = api.metrics() - before
        if delta.drafts > 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    if delta.drafts <= 0:
        return Check("counters", False, "probe request drafted nothing (spec_decode counters did not move)")
    al = delta.acceptance_length or 1.0
    return Check("counters", True, f"probe drafted {delta.draft_tokens:.0f} tokens in "
                 f"{delta.drafts:.0f} steps, acceptance length {al:.2f}")


@dataclass(frozen=True)
class PerRequestSpec:
    """``metrics.speculative_decoding`` from ``--per-request-spec-decode-metrics summary|detailed``."""

    mean_acceptance_length: float
    draft_acceptance_rate: float
    num_spec_steps: int
    num_accepted_draft_tokens: int
    num_draft_tokens: int
    num_spec_tokens: int
    acceptance_histogram: list[int] | None = None


def per_request_spec_metrics(chunk: Mapping[str, object]) -> PerRequestSpec | None:
    """The per-request speculation summary on a response (streaming: only the final usage chunk)."""
    metrics = chunk.get("metrics")
    spec = metrics.get("speculative_decoding") if isinstance(metrics, dict) else None
    if not isinstance(spec, dict):
        return None  # absent, or null (vLLM gives null for n>1)
    try:
        hist = spec.get("acceptance_histogram")
        return PerRequestSpec(
            mean_acceptance_length=float(spec["mean_acceptance_length"]),
            draft_acceptance_rate=float(spec.get("draft_acceptance_rate") or 0.0),
            num_spec_steps=int(spec["num_spec_steps"]),
            num_accepted_draft_tokens=int(spec["num_accepted_draft_tokens"]),
            num_draft_tokens=int(spec["num_draft_tokens"]),
            num_spec_tokens=int(spec.get("num_spec_tokens") or 0),
            acceptance_histogram=[int(x) for x in hist] if isinstance(hist, list) else None,
        )
    except (KeyError, TypeError, ValueError):
        return None
