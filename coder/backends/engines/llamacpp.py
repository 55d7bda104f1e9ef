"""llama.cpp ``llama-server``: binary discovery, capabilities from ``--help``, argv, readiness,
verification and request extras. The capability probes of coder's own build (per-request
draft cap, prediction drafter) are in :mod:`coder.backends.engines.llamacpp_probe`.
"""

from __future__ import annotations

import contextlib
import functools
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from coder.backends.engines.base import Check, Verdict
from coder.backends.engines.llamacpp_probe import (
    CAP_PROBE_VALUE,
    cap_probe_body,
    cap_probe_proves,
    chain_checks,
    probe_costs,
    probe_draft_cap,
    probe_prediction,
)
from coder.backends.runtime import proc
from coder.backends.runtime.server import ServerAPI, ServerInfo, answer_json
from coder.config import Profile
from coder.errors import CoderError
from coder.jsontypes import as_count, as_object
from coder.spec_vocab import LLAMACPP_CAP_FIELD as REQUEST_FIELD
from coder.spec_vocab import LLAMACPP_DRAFT_TYPES, LLAMACPP_NGRAM_TYPES, LLAMACPP_PATCHED_TYPES, launch_depth, types_of
from coder.spec_vocab import LLAMACPP_PREDICTION_FIELD as PREDICTION_FIELD
from coder.telemetry.prefill import REQUEST_FIELD as PROGRESS_FIELD
from coder.telemetry.stats import by_type

if TYPE_CHECKING:
    from coder.backends.engines.warm import WarmSender

__all__ = ["CAP_PROBE_VALUE", "LlamaCppAdapter", "cap_probe_body", "cap_probe_proves", "probe_draft_cap",
           "probe_prediction"]

NGRAM_TYPES = LLAMACPP_NGRAM_TYPES
DRAFT_TYPES = LLAMACPP_DRAFT_TYPES
PATCHED_TYPES = LLAMACPP_PATCHED_TYPES
NEEDS_DRAFTER = ("draft-simple", "draft-eagle3", "draft-dflash", "draft-dspark")
# Per spec type, the flag that bounds its draft length (k); n-gram types have their own.
_K_FLAG = {
    "ngram-mod": "--spec-ngram-mod-n-max",
    "ngram-simple": "--spec-ngram-simple-size-m",
    "ngram-map-k": "--spec-ngram-map-k-size-m",
    "ngram-map-k4v": "--spec-ngram-map-k4v-size-m",
}
# A repetitive continuation: every speculator type drafts on it, n-gram lookup included.
PROBE_PROMPT = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu " * 6).strip()
CPU_PREFILL_BATCH = 128  # -b/-ub on CPU: how often streamed prompt progress arrives


@dataclass(frozen=True)
class Capabilities:
    """What a llama-server binary supports, read from its own ``--help``."""

    flags: frozenset[str]
    spec_types: tuple[str, ...]

    def require_flag(self, flag: str) -> None:
        """Raise a one-line CoderError when this binary lacks ``flag``."""
        if flag not in self.flags:
            raise CoderError(f"this llama-server has no {flag} flag (too old?); update it or pick another binary")


def find_binary(profile: Profile) -> Path:
    """Profile's binary, else coder's own build, else ``llama-server`` on PATH."""
    if profile.binary:
        if "/" not in profile.binary:  # a bare name is a command on PATH, never a file in the cwd
            found = shutil.which(profile.binary)
            if found is None:
                raise CoderError(f"llama-server binary not found: {profile.binary} is not on PATH")
            return Path(found)
        path = Path(profile.binary).expanduser()
        if not path.is_file():
            raise CoderError(f"llama-server binary not found: {path}")
        return path
    from coder.backends.installed import find_installed

    if build := find_installed():
        return Path(build.binary)
    if found := shutil.which("llama-server"):
        return Path(found)
    raise CoderError("no llama-server found: run `coder backend install llama.cpp` or set `binary` in the profile")


@functools.lru_cache(maxsize=8)
def _help_text(binary: str, mtime: float) -> str:
    try:
        proc = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        raise CoderError(f"cannot run {binary}: {exc.strerror}") from None
    except subprocess.TimeoutExpired:
        raise CoderError(f"{binary} --help did not finish") from None
    return proc.stdout + proc.stderr


def parse_help(text: str) -> Capabilities:
    """Flags and ``--spec-type`` values listed in llama-server's help text."""
    flags = frozenset(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", text))
    spec_types: tuple[str, ...] = ()
    if m := re.search(r"--spec-type\s+\[?([a-z0-9,|\- ]+?)\]?\s{2,}", text):
        spec_types = tuple(t for t in re.split(r"[,| ]+", m.group(1)) if t)
    return Capabilities(flags, spec_types)


def capabilities(binary: Path) -> Capabilities:
    """What ``binary`` supports (its ``--help`` is read once per file version)."""
    return parse_help(_help_text(str(binary), binary.stat().st_mtime))


def resolve_model(spec: str | None, role: str, dry_run: bool = False) -> str:
    """Turn a profile's model field into a GGUF path: a catalog name (``demo``, ``qwen-coder-1.5b``)
    becomes its installed file; a path must be a GGUF, and a target must carry a chat template."""
    if not spec:
        raise CoderError(f"the profile names no {role} model (set `model` or pass --model)")
    from coder.models import store

    if named := store.lookup(spec):
        return str(store.model_path(named) if dry_run else store.require(named))
    path = Path(spec).expanduser()
    if dry_run:
        return str(path)
    if not path.is_file():
        raise CoderError(f"{role} model not found: {path}")
    from coder.models.gguf_info import check_chat_model, check_magic

    check_magic(path, f"{role} model")
    if role == "target":  # coder talks to the target through /v1/chat/completions
        check_chat_model(path)
    return str(path)


def k_flags(spec_type: str, k: int, gpu: bool = False) -> list[str]:
    """Launch flags that set draft depth k for ``spec_type``, a type or a chain ``a,b``.

    Always includes --spec-draft-n-max (llama.cpp's default of 3 is never used). A single type
    drafts at k. In a chain with a model drafter, the model drafter stays at k (its block) and
    the copy drafters launch at ``max(k, COPY_K_MAX)``: the per-request cap chooses the depth.
    On a GPU a chain of copy drafters alone launches that deep too (``spec_vocab.launch_depth``).
    """
    depth = launch_depth(spec_type, k, gpu) or k
    has_model = any(t in LLAMACPP_DRAFT_TYPES for t in types_of(spec_type))
    flags = ["--spec-draft-n-max", str(k if has_model else depth)]
    for t in types_of(spec_type):
        if flag := _K_FLAG.get(t):
            flags += [flag, str(depth)]
            if t == "ngram-mod":
                flags += ["--spec-ngram-mod-n-min", str(min(depth, 4))]
    return flags


def drafter_k_max(profile: Profile) -> int | None:
    """Largest useful k for the profile's DFlash-family drafter (block size bound), if it can be read."""
    if not {"draft-dflash", "draft-dspark"} & set(types_of(profile.spec_type)) or not profile.drafter:
        return None
    path = Path(profile.drafter).expanduser()
    if not path.is_file():
        return None
    from coder.models.gguf_info import inspect_gguf

    return inspect_gguf(path).k_max


class LlamaCppAdapter:
    """EngineAdapter for llama.cpp's llama-server."""

    name = "llama.cpp"
    installable = True
    per_request_cache = True  # ``cache_prompt``
    streams_draft_counters = True  # ``timings_per_token``
    token_probes = True  # ``/completion`` with ``return_tokens``, ``n_probs``; ``/apply-template``, ``/tokenize``

    def build_argv(self, profile: Profile, port: int, api_key: str, *, dry_run: bool = False,
                   key_file: str | None = None) -> list[str]:
        """argv for ``profile``; ``dry_run`` skips file checks (models need not exist yet)."""
        binary = _dry_run_binary(profile) if dry_run else find_binary(profile)
        caps = capabilities(binary) if binary.is_file() else None
        spec = profile.spec_type or "none"
        types = [t for t in spec.split(",") if t]
        if caps:
            _check_spec_types(caps, types)
        argv = [str(binary), "-m", resolve_model(profile.model, "target", dry_run)]
        argv += _spec_args(profile, spec, types, dry_run, gpu=not _cpu_only(profile, binary))
        if profile.ngl is not None:
            argv += ["-ngl", str(profile.ngl)]
        argv += ["-c", str(profile.ctx), "-np", str(profile.parallel)]
        if profile.flash_attn:
            argv += ["-fa", profile.flash_attn]
        if profile.reasoning_budget is not None:
            argv += ["--reasoning-budget", str(profile.reasoning_budget)]
        if profile.threads:
            argv += ["-t", str(profile.threads)]
        argv += ["--metrics", "--host", profile.host, "--port", str(port)]
        argv += ["--api-key-file", key_file] if key_file else ["--api-key", api_key]
        batch_flags_known = caps is None or {"-b", "-ub"} <= caps.flags  # a wrapper may not list them
        if (_cpu_only(profile, binary) and batch_flags_known
                and not {"-b", "--batch-size", "-ub", "--ubatch-size"} & set(profile.extra_args)):
            # prompt progress streams once per batch: 2048-token batches leave a CPU prefill bar
            # still for many seconds. Late in a 3,400-token prefill on the 2-core box the gaps were
            # 2.1-2.9 s at 256, 1.6-2.2 s at 192 and 1.2-1.4 s at 128, whose prefill time stayed
            # within the runs' noise (scripts/bench_latency.py --batch, side by side)
            argv += ["-b", str(CPU_PREFILL_BATCH), "-ub", str(CPU_PREFILL_BATCH)]
        argv += profile.extra_args
        if caps:
            for flag in (a for a in argv[1:] if a.startswith("-") and not _is_number(a)):
                caps.require_flag(flag)
        return argv

    def k_max(self, profile: Profile) -> int | None:
        """The DFlash-family drafter's block bound, read from its GGUF."""
        return drafter_k_max(profile)

    def ready(self, api: ServerAPI) -> bool:
        """``/health`` answers 200 once the model is loaded."""
        return api.health_status() == 200

    def describe(self, info: ServerInfo, api: ServerAPI) -> None:
        """Build info from ``/props``, coder's build record, the probed draft cap and prediction drafter."""
        with contextlib.suppress(CoderError):  # no usable /props (an old or wrapped server): build unknown
            info.build["build_info"] = api.props().get("build_info")
        info.draft_cap = info.spec_type not in (None, "none") and probe_draft_cap(api)
        # the field parses on coder's build; it drafts only where the chain has the prediction type
        info.prediction = "prediction" in types_of(info.spec_type) and probe_prediction(api)
        from coder.backends.installed import find_installed

        build = find_installed()
        if build and info.argv and info.argv[0] == build.binary:
            info.build.update(variant=build.variant, patches=build.patches)

    def check_attached(self, info: ServerInfo, api: ServerAPI) -> None:
        """``/slots`` must report ``speculative: true``; then probe the draft cap and prediction drafter."""
        slots = api.slots()
        info.verified = bool(slots) and all(s.get("speculative") for s in slots)
        info.verdict = ("slots report speculative: true" if info.verified
                        else "NOT VERIFIED: /slots does not report speculative: true")
        info.draft_cap = bool(info.verified) and probe_draft_cap(api)
        types = {t for slot in slots for t in str(slot.get("speculative_types", "")).split(",")}
        info.prediction = bool(info.verified) and "prediction" in types and probe_prediction(api)

    def request_extras(self, *, k_cap: int | None, cache_prompt: bool | None,
                       progress: bool = False, prediction: str | None = None) -> dict[str, object]:
        """Running counters per chunk, the draft cap and predicted output (coder's build), caching."""
        body: dict[str, object] = {"timings_per_token": True}
        if k_cap is not None:
            body[REQUEST_FIELD] = k_cap
        if cache_prompt is not None:
            body["cache_prompt"] = cache_prompt
        if progress:
            body[PROGRESS_FIELD] = True  # streamed prompt progress (build 11434 has it)
        if prediction:  # OpenAI's Predicted Outputs shape; coder's prediction drafter reads it
            body[PREDICTION_FIELD] = {"type": "content", "content": prediction}
        return body

    def slot_count(self, api: ServerAPI) -> int | None:
        """Slots listed by ``/slots`` (the ``-np`` value)."""
        try:
            return len(api.slots()) or None
        except CoderError:
            return None

    def runs_on_gpu(self, profile: Profile) -> bool:
        """Layers offloaded (``ngl`` > 0) to a GPU build; a CPU build ignores ``ngl``."""
        return not _cpu_only(profile, _dry_run_binary(profile))

    def warm_sender(self, info: ServerInfo) -> WarmSender:
        """``/apply-template`` then a ``/completion`` prefill of the cut prompt; on someone else's
        server only while its slot is idle."""
        from coder.backends.engines.warm import LlamaCppWarmSender

        return LlamaCppWarmSender(info, check_idle=not info.managed)

    def owns_process(self, info: ServerInfo) -> bool:
        """The launched process, by pid and start time (a wrapper ``binary`` that execs
        llama-server keeps both, though its command line then names llama-server)."""
        return proc.is_running(info.pid, info.pid_start)

    def verify(self, info: ServerInfo, api: ServerAPI, log_text: str) -> Verdict:
        """/slots speculative, drafter load lines, and a probe generation with draft_n > 0."""
        from coder.backends.engines import logscan  # its ~40 patterns compile when a server is verified

        checks = [Check("log", False, f.reason) for f in logscan.known_failures("llama.cpp", log_text)]
        slots = api.slots()
        spec_slots = [s for s in slots if s.get("speculative")]
        checks.append(Check("/slots", bool(slots) and len(spec_slots) == len(slots),
                            f"{len(spec_slots)}/{len(slots)} slots speculative"))
        if info.drafter:
            loaded = "loading draft model" in log_text
            checks.append(Check("drafter log", loaded,
                                "draft model loaded" if loaded else "no 'loading draft model' line in the log"))
        if info.spec_type in ("draft-dflash", "draft-dspark"):
            # DFlash-family types print their implementation line at INFO; others only at trace level
            load = logscan.llamacpp_spec_load(log_text)
            checks.append(Check("speculator log", bool(load.impl_types),
                                f"{load.family or info.spec_type}, n_max={load.effective_n_max}, "
                                f"block {load.block_size}" if load.impl_types
                                else "no 'adding speculative implementation' line"))
        checks += chain_checks(info.spec_type, slots)
        body: dict[str, object] = {"prompt": PROBE_PROMPT, "n_predict": 48, "temperature": 0,
                                   "cache_prompt": False}
        if "prediction" in types_of(info.spec_type):
            # the probe's likely continuation, so the prediction drafter is exercised too
            body[PREDICTION_FIELD] = {"type": "content", "content": " " + PROBE_PROMPT}
        resp = api.post("/completion", body)
        if resp.status_code != 200:
            checks.append(Check("probe", False, f"probe request answered {resp.status_code}"))
        else:
            timings = as_object(as_object(answer_json(f"{api.url}/completion", resp, dict)).get("timings"))
            drafted = as_count(timings.get("draft_n"))
            accepted = as_count(timings.get("draft_n_accepted"))
            per_type = by_type(timings) or {}
            split = (" (" + ", ".join(f"{t} {c['draft_n']}" for t, c in per_type.items()) + ")") if per_type else ""
            checks.append(Check("probe", drafted > 0, f"probe drafted {drafted}{split}, accepted {accepted}"))
            info.prefill_s_per_token, info.decode_tps = probe_costs(timings)  # auto mode's first costs
        return Verdict(all(c.ok for c in checks), checks)


def _check_spec_types(caps: Capabilities, types: list[str]) -> None:
    unknown = [t for t in types if t != "none" and t not in caps.spec_types]
    if unknown:
        listed = ", ".join(caps.spec_types) or "none listed"
        raise CoderError(f"this llama-server does not support --spec-type {','.join(unknown)} "
                         f"(it lists: {listed})")


def _spec_args(profile: Profile, spec: str, types: list[str], dry_run: bool, gpu: bool) -> list[str]:
    """Drafter model, ``--spec-type`` and the k flags (always explicit, never llama.cpp's default 3)."""
    argv: list[str] = []
    if profile.drafter:
        argv += ["-md", resolve_model(profile.drafter, "draft", dry_run)]
    elif any(t in NEEDS_DRAFTER for t in types):
        raise CoderError(f"--spec-type {spec} needs a drafter model (set `drafter` or pass --drafter)")
    if spec != "none":
        if profile.k is None or profile.k < 1:
            raise CoderError("a speculative profile needs k ≥ 1 (llama.cpp's default of 3 is never used)")
        k_max = drafter_k_max(profile)
        argv += ["--spec-type", spec]
        argv += k_flags(spec, min(profile.k, k_max) if k_max else profile.k, gpu)
    return argv


def _cpu_only(profile: Profile, binary: Path) -> bool:
    """True for a CPU run: no layers offloaded, a CPU build of coder's (``<key>/bin/llama-server``),
    or any binary on a machine without a GPU.

    The build record says which variant a build is; without one, the key does
    (``11434.0.0-cpu-native-<digest>``, or the older ``11434.0.0-cpu``). A binary coder
    did not build (a custom ``binary``, a wrapper script) runs on the CPU whenever the
    machine has no GPU driver to offload to.
    """
    if profile.ngl == 0:
        return True
    from coder.backends.installed import read_record

    build = binary.parent.parent
    record = read_record(build)
    if record is not None:
        return record.variant == "cpu"
    if re.search(r"-cpu(-|$)", build.name) is not None:
        return True
    if re.search(r"-(cuda|rocm|vulkan)(-|$)", build.name) is not None:
        return False
    return not any(shutil.which(tool) for tool in ("nvidia-smi", "rocm-smi"))


def _dry_run_binary(profile: Profile) -> Path:
    try:
        return find_binary(profile)
    except CoderError:
        return Path(profile.binary or "llama-server")


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
