"""``coder doctor``: one verdict per thing that must be right before coder can go fast."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from coder import config as config_mod
from coder import trust
from coder.backends.engines.base import Check
from coder.backends.engines.registry import adapter_for
from coder.backends.runtime import manager
from coder.config import Profile
from coder.errors import CoderError

if TYPE_CHECKING:
    from coder.backends.installed import InstalledBuild


def _binary_checks(profile: Profile) -> list[Check]:
    from coder.backends.engines.llamacpp import capabilities, find_binary
    from coder.backends.installed import find_installed
    from coder.hardware import gpu_compute_capability

    try:
        binary = find_binary(profile)
    except CoderError as exc:
        return [Check("binary", False, str(exc))]
    build = find_installed()
    if build and str(binary) == build.binary:
        detail = f"{binary} (b{build.build_number}, {build.variant}, patches: {', '.join(build.patches) or 'none'})"
    else:
        detail = f"{binary} (not built by coder: per-request k cap unknown until probed)"
    checks = [Check("binary", True, detail)]
    if build and str(binary) == build.binary:
        checks.append(_cpu_check(build))
    try:
        caps = capabilities(binary)
    except CoderError as exc:
        return [*checks, Check("binary --help", False, str(exc))]
    spec = profile.spec_type or "none"
    missing = [t for t in spec.split(",") if t != "none" and t not in caps.spec_types]
    checks.append(Check("spec type", not missing,
                        f"{spec} supported" if not missing else f"binary lacks --spec-type {','.join(missing)}"))
    if build and build.variant == "cuda" and gpu_compute_capability() is None:
        checks.append(Check("variant", False, "CUDA build but no GPU visible"))
    return checks


def _cpu_check(build: InstalledBuild) -> Check:
    """The build's CPU configuration, and whether this CPU can execute it."""
    from coder.backends.cpu_features import can_execute, probe

    ok, why = can_execute(build.cpu, probe())
    hint = "" if ok else "; run: coder backend install llama.cpp --portable"
    return Check("cpu build", ok, f"{build.cpu_summary()}: {why}{hint}")


def _model_checks(profile: Profile) -> list[Check]:
    from coder.models import store
    from coder.models.gguf_info import inspect_gguf

    checks: list[Check] = []
    infos = {}
    for role, spec in (("target", profile.model), ("drafter", profile.drafter)):
        if not spec:
            if role == "target":
                checks.append(Check("target model", False, "profile names no model"))
            continue
        if named := store.lookup(spec):
            path = store.installed(named)
            if path is None:
                checks.append(Check(f"{role} model", None,
                                    f"{spec} not fetched yet (coder model fetch {spec})"))
                continue
        else:
            path = Path(spec).expanduser()
        try:
            info = inspect_gguf(path)
        except CoderError as exc:
            checks.append(Check(f"{role} model", False, str(exc)))
            continue
        infos[role] = info
        if role == "target" and not info.chat_template and info.drafter_family is None:
            checks.append(Check("target model", False, f"{path.name}: no chat template (tokenizer.chat_template); "
                                "coder needs an instruct model that carries one"))
            continue
        checks.append(Check(f"{role} model", True, f"{path.name}: {info.architecture}, vocab {info.vocab_size}"
                            + (f", {info.drafter_family} block {info.block_size}" if info.drafter_family else "")))
    if "target" in infos and "drafter" in infos:
        t, d = infos["target"], infos["drafter"]
        same = t.vocab_size == d.vocab_size
        checks.append(Check("vocab match", same, f"target {t.vocab_size} vs drafter {d.vocab_size}"))
        if d.k_max and profile.k:
            ok = profile.k <= d.k_max
            checks.append(Check("k vs block", ok, f"k={profile.k}, drafter allows at most {d.k_max}"))
    return checks


def run_checks(profile: Profile | None = None, repo_root: Path | None = None, *,
               expose: bool = False) -> list[Check]:
    """Every doctor check for ``profile`` (default: the configured default profile)."""
    try:
        cfg = config_mod.load(repo_root)
    except CoderError as exc:
        return [Check("config", False, str(exc))]
    checks = [Check("config", True, ", ".join(map(str, cfg.sources)) or "built-in defaults")]
    checks += [Check("trust", None, line) for line in cfg.ignored]
    profile = profile or cfg.profile()
    if not trust.is_loopback(profile.host):
        checks.append(Check("host", None if expose else False,
                            f"{profile.host} is not loopback: reachable from other machines; "
                            "`coder backend start` needs --expose"))
    checks.append(Check("profile", True, f"{profile.name} ({profile.engine}, spec {profile.spec_type}, k {profile.k})"))
    if profile.managed and adapter_for(profile.engine).installable:
        checks += _binary_checks(profile)
        checks += _model_checks(profile)
    if profile.port:
        busy = manager.port_in_use(profile.port, profile.host)
        running = manager.current(profile.name)
        checks.append(Check("port", not busy or running is not None,
                            f"{profile.port} {'in use' if busy else 'free'}"))
    from coder.hardware import gpu_compute_capability

    cap = gpu_compute_capability()
    checks.append(Check("GPU", True if cap else None, f"NVIDIA sm_{cap}" if cap else "none visible (CPU inference)"))
    running = manager.current(profile.name) or manager.current()
    if running:
        checks.append(Check("server", running.verified, f"{running.url}: {running.verdict}"))
    else:
        checks.append(Check("server", None, "not running (coder backend start)"))
    return checks
