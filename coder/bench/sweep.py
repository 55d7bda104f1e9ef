"""The whole ``coder bench`` plan: targets × (prefill, k sweep, concurrency, baseline, lossless).

Servers this module starts are stopped again, and a server it had to relaunch
(another k, more slots) is put back as it was, so a bench leaves the machine as found.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TypedDict

from coder.backends.engines.registry import adapter_for
from coder.backends.runtime import manager
from coder.backends.runtime.http import HTTPError
from coder.backends.runtime.server import ServerInfo
from coder.bench import lossless, stats
from coder.bench.lossless import CheckJSON
from coder.bench.records import RunResult
from coder.bench.runner import THINKING_OFF, NullProgress, Progress, Runner, Settings
from coder.bench.schema import TargetJSON
from coder.bench.workloads import Workload
from coder.config import Profile
from coder.errors import CoderError


@dataclass
class Target:
    """A configuration to measure: a profile (started through the manager if needed) or a given server."""

    name: str
    profile: Profile | None = None
    server: ServerInfo | None = None


@dataclass
class Plan:
    """What a bench invocation measures: targets, k values, concurrencies, settings."""

    workloads: list[Workload]
    settings: Settings
    targets: list[Target]
    ks: list[int] = field(default_factory=list)
    concurrency: list[int] = field(default_factory=list)
    baseline: bool = False
    verify_lossless: bool = False
    prefill: bool = True
    force_restart: bool = False  # apply every k by relaunching, even where a per-request cap works
    conc_max_tokens: int | None = None

    def request_count(self) -> int:
        """Requests the plan will send (for the progress bar; priming requests and restarts add a few)."""
        s, n = self.settings, len(self.workloads)
        per = (len(self.ks) or 1) * s.reps * n
        per += sum(len(stats.balanced_assignment(n, c)) for c in self.concurrency)
        per += (s.reps + 1) if self.prefill else 0
        if self.baseline or self.verify_lossless:
            per += s.reps * n + sum(len(stats.balanced_assignment(n, c)) for c in self.concurrency)
        if self.verify_lossless:
            per += 2 * n  # each prompt's speculative output, then its plain outputs and explanation
        return per * len(self.targets)


def k_mode(server: ServerInfo, k: int, force_restart: bool) -> str:
    """How a draft depth is applied: ``launch`` (already the server's k), ``request-cap`` or ``restart``."""
    if server.k == k and not force_restart:
        return "launch"
    if server.draft_cap and server.k is not None and k <= server.k and not force_restart:
        return "request-cap"
    return "restart"


def baseline_profile(profile: Profile) -> Profile:
    """The same launch without speculation (``with_overrides`` skips None, so replace directly)."""
    return dataclasses.replace(profile, spec_type="none", drafter=None, k=None,
                               name=f"{profile.name}-baseline", port=None)


class _Session:
    """Servers of one target: which were started here, which relaunched, and how to put them back."""

    def __init__(self, target: Target, settings: Settings, progress: Progress) -> None:
        self.target, self.settings, self.progress = target, settings, progress
        self.started: list[str] = []
        self.relaunched = False
        if target.server is not None:
            self.server = target.server
        elif target.profile is not None:
            running = manager.current(target.profile.name) if target.profile.managed else None
            self.server = running or manager.start(target.profile)
            if running is None and target.profile.managed:
                self.started.append(target.profile.name)
        else:
            raise CoderError(f"target {target.name}: no profile and no server")
        self.runner = Runner(self.server, settings, progress)

    def relaunch(self, profile: Profile) -> None:
        if self.target.profile is None or not self.target.profile.managed:
            raise CoderError(f"{self.target.name}: relaunching needs a managed profile, "
                             "not an attached server")
        self.runner.close()
        manager.stop(profile.name)
        self.server = manager.start(profile)
        self.runner = Runner(self.server, self.settings, self.progress)
        self.relaunched = True

    def close(self) -> list[str]:
        notes: list[str] = []
        self.runner.close()
        profile = self.target.profile
        if profile is not None and profile.name in self.started:
            manager.stop(profile.name)
        elif profile is not None and self.relaunched:
            manager.stop(profile.name)
            manager.start(profile)
            notes.append(f"{profile.name} relaunched with its own settings after the sweep")
        return notes


def _slots(server: ServerInfo) -> int | None:
    with server.api() as api:
        return adapter_for(server.engine).slot_count(api)


class _SpecOutputs(TypedDict):
    """Each prompt's token ids and its greedy output on the speculating server."""

    k: int | None
    spec_type: str | None
    prompts: dict[str, list[int]]
    outputs: dict[str, list[int]]


def run_target(plan: Plan, target: Target, progress: Progress) -> TargetJSON:
    """Every measurement the plan asks for on one target; returns its JSON section."""
    session = _Session(target, plan.settings, progress)
    runs: list[RunResult] = []
    notes: list[str] = []
    baseline_runs: list[RunResult] = []
    spec_out: _SpecOutputs | None = None
    check: CheckJSON | None = None
    try:
        if plan.prefill:
            runs.append(session.runner.prefill(label=target.name))
        for k in plan.ks or [session.server.k or 0]:
            if not plan.ks:
                runs.append(session.runner.single(plan.workloads, label=target.name, k=session.server.k,
                                                  k_applied="launch" if session.server.k else "none"))
                break
            mode = k_mode(session.server, k, plan.force_restart)
            if mode == "restart":
                if target.profile is None:
                    raise CoderError(f"k={k} needs a relaunch (this server has no per-request draft cap "
                                     f"up to {k}); bench a managed profile instead of an attached server")
                session.relaunch(target.profile.with_overrides(k=k))
            runs.append(session.runner.single(
                plan.workloads, label=f"{target.name} k={k}", k=k, k_applied=mode,
                k_cap=k if mode == "request-cap" else None))
        if plan.concurrency:
            runs += _concurrency(plan, session, notes)
        if plan.verify_lossless:
            spec_out = _speculative_outputs(plan, session, progress, notes)
    finally:
        notes += session.close()
    if plan.baseline or plan.verify_lossless:
        baseline_runs, check = _baseline(plan, target, progress, notes, spec_out)
    return {
        "name": target.name,
        "profile": dataclasses.asdict(target.profile) if target.profile else None,
        "runs": [r.to_json() for r in runs],
        "baseline_runs": [r.to_json() for r in baseline_runs],
        "lossless_check": check,
        "notes": notes,
    }


def _speculative_outputs(plan: Plan, session: _Session, progress: Progress,
                         notes: list[str]) -> _SpecOutputs | None:
    """Token ids of each prompt's greedy output with speculation, for the lossless check."""
    server = session.server
    if not adapter_for(server.engine).token_probes:
        notes.append(f"lossless: {server.engine} has no /completion by token ids with n_probs; its "
                     "divergences are compared as text only")
        return None
    try:
        with server.api(timeout=600) as api:
            prompts = {w.name: lossless.prompt_tokens(api, w.messages, THINKING_OFF) for w in plan.workloads}
            outputs = {}
            for name, prompt in prompts.items():
                outputs[name] = lossless.greedy(api, prompt, plan.settings.max_tokens, cache_prompt=False)
                progress.step(f"lossless {name} (speculative)")
    except (CoderError, HTTPError, KeyError, ValueError) as exc:
        notes.append(f"lossless: no speculative token output ({type(exc).__name__}: {exc})")
        return None
    return {"k": server.k, "spec_type": server.spec_type, "prompts": prompts, "outputs": outputs}


def _explain(plan: Plan, server: ServerInfo, spec_out: _SpecOutputs, progress: Progress,
             notes: list[str]) -> CheckJSON | None:
    """The divergence explanation on the plain server (coder.bench.lossless.verify)."""
    try:
        with server.api(timeout=600) as api:
            check = lossless.verify(api, spec_out["prompts"], spec_out["outputs"], plan.settings.max_tokens,
                                    on_prompt=lambda name: progress.step(f"lossless {name} (plain)"))
    except (CoderError, HTTPError, KeyError, ValueError) as exc:
        notes.append(f"lossless: divergences not explained ({type(exc).__name__}: {exc})")
        return None
    check["k"], check["spec_type"] = spec_out["k"], spec_out["spec_type"]
    return check


def _concurrency(plan: Plan, session: _Session, notes: list[str]) -> list[RunResult]:
    cmax = max(plan.concurrency)
    slots = _slots(session.server)
    profile = session.target.profile
    if slots is not None and slots < cmax:
        if profile is not None and profile.managed:
            session.relaunch(profile.with_overrides(parallel=cmax, k=session.server.k))
            notes.append(f"relaunched with -np {cmax} (was {slots}) for the concurrency sweep; each slot "
                         f"then holds ctx/{cmax} = {profile.ctx // cmax} tokens")
            slots = _slots(session.server)
        else:
            notes.append(f"server has {slots} slot(s); points above c={slots} queue inside the server")
    return [session.runner.concurrency(plan.workloads, c, label=f"{session.target.name} c={c}",
                                       k=session.server.k, max_tokens=plan.conc_max_tokens, slots=slots)
            for c in plan.concurrency]


def _baseline(plan: Plan, target: Target, progress: Progress, notes: list[str],
              spec_out: _SpecOutputs | None = None) -> tuple[list[RunResult], CheckJSON | None]:
    profile = target.profile
    if profile is None or not profile.managed:
        notes.append("no baseline: it needs a managed profile (coder launches it without speculation)")
        return [], None
    base = baseline_profile(profile)
    if plan.concurrency:
        base = base.with_overrides(parallel=max(plan.concurrency, default=1))
    session = _Session(Target(base.name, profile=base), plan.settings, progress)
    try:
        runs = [session.runner.single(plan.workloads, label=f"{base.name}", k=None, k_applied="none")]
        runs += [session.runner.concurrency(plan.workloads, c, label=f"{base.name} c={c}",
                                            max_tokens=plan.conc_max_tokens, slots=_slots(session.server))
                 for c in plan.concurrency]
        check = _explain(plan, session.server, spec_out, progress, notes) if spec_out is not None else None
    finally:
        notes += session.close()
    return runs, check


def run_plan(plan: Plan, progress: Progress | None = None) -> list[TargetJSON]:
    """Run every target in turn (never two servers measured at once)."""
    progress = progress or NullProgress()
    progress.add(plan.request_count())
    return [run_target(plan, t, progress) for t in plan.targets]
