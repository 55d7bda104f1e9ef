"""The data of an edit: the k choice it runs with, the request, the proposal, the apply result.

Plain data only (no I/O), shared by the engine, the CLI, the bench and the TUI.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from coder.edit.apply.files import FileSnapshot, diff_stat
from coder.edit.checks.explained import Scope
from coder.edit.checks.user_commands import CheckRun
from coder.edit.intent.spec import ChangeSpec
from coder.edit.plan.auto import Prediction
from coder.edit.run.budget import Budget
from coder.edit.run.prompt import EditPrompt
from coder.edit.source.regions import Region
from coder.kchoice import KChoice
from coder.telemetry.metrics import SpecDelta
from coder.telemetry.stats import RequestStats

UNCHANGED = "the model made no changes"  # what every front end says of a reply that changed nothing


@dataclass(frozen=True)
class EditRequest:
    """Everything needed to send one edit and to apply its reply."""

    snapshot: FileSnapshot
    instruction: str
    mode: str  # "full" | "region"
    request_class: str  # "full" | "region" | "fresh"
    mode_reason: str
    region: Region | None
    before: str  # file text before the region (empty in full mode)
    after: str
    prompt: EditPrompt
    budget: Budget
    k: KChoice
    token_source: str
    predictions: dict[str, Prediction] | None = None  # auto mode: both modes' predicted wall times
    # one region of a plan: the code rules of the result check wait for the whole plan's splice (a method a
    # neighbouring region renames is not set until then)
    in_plan: bool = False
    spec: ChangeSpec | None = None  # the instruction read once: every check of the reply takes it
    retry_note: str = ""  # a retry's: what the first reply got wrong (in the prompt; the instruction stays the user's)
    temperature: float = 0.0  # greedy, but for a sample of a fix (coder.edit.run.sample)
    seed: int | None = None  # a sample's seed: the same samples on a rerun
    moved: str = ""  # a request moved to where the failing oracles point (coder.edit.run.locate): why

    @property
    def messages(self) -> list[dict[str, str]]:
        """The chat messages sent."""
        return self.prompt.messages

    @property
    def how(self) -> str:
        """How the request carries the change out: ``region function join`` or ``full rewrite``."""
        return f"region {self.region.label}" if self.mode == "region" and self.region else f"{self.mode} rewrite"

    @property
    def read(self) -> str:
        """What coder understood, in words, with how: ``docstrings function join (region function join)``."""
        if self.spec is None:
            return ""
        from coder.edit.intent.describe import describe

        return describe(self.spec, self.how)


@dataclass(frozen=True)
class Sampled:
    """The samples drawn for a fix the greedy retry did not mend, while an oracle fails (:mod:`coder.edit.run.sample`).

    ``accepted`` is the 1-based sample that passed every check (None: none did, the retry's refusal stands);
    ``drawn`` how many were asked of ``of``; ``oracle`` what fails on the code as it is
    (``the failing example``, ``the failing tests``), which a passing sample no longer fails.
    """

    accepted: int | None
    drawn: int
    of: int
    temperature: float
    oracle: str

    def line(self) -> str:
        """One line for the CLI, the TUI and the bench report."""
        if self.accepted is None:
            still = "fail" if self.oracle.endswith("tests") else "fails"  # "the failing example and tests"
            return (f"{self.drawn} sampled {'reply' if self.drawn == 1 else 'replies'} (temperature "
                    f"{self.temperature:g}) drawn, none passed every check; {self.oracle} still {still}")
        return (f"accepted sample {self.accepted} of {self.of} (temperature {self.temperature:g}): "
                f"passes {self.oracle}")

    def to_json(self) -> dict[str, object]:
        """The ``--json`` and bench-row form, its line included."""
        return {**asdict(self), "line": self.line()}


@dataclass
class EditProposal:
    """A validated edit ready to apply, or the reason it was refused."""

    request: EditRequest
    new: str
    diff: str
    stats: RequestStats
    refusal_code: str | None = None
    refusal: str | None = None
    reply: str = ""
    validate_s: float | None = None  # seconds coder spent validating the reply (Enter-to-diff split)
    spec: SpecDelta | None = None  # /metrics movement around the request (per-position acceptance)
    scope: Scope | None = None  # which changes the instruction explains (accepted proposals)
    checks: tuple[CheckRun, ...] = ()  # the user's test/lint commands run on it (coder.edit.checks.user_commands)
    retried: str | None = None  # why the first reply was asked again (refused, unchanged, flagged): this is the retry
    checks_not_run: str = ""  # why a repository's test/lint commands did not run on it (coder.trust)
    first_reply: str = ""  # that first reply (kept for the record)
    examples: tuple[str, ...] = ()  # what the instruction's examples showed (coder.edit.checks.behaviour)
    sampled: Sampled | None = None  # sampled replies drawn after the retry (coder.edit.run.sample)
    moved: str | None = None  # where else the bug was looked for, and what came of it (coder.edit.run.locate)
    repaired: str | None = None  # the one-token changes the failing tests were run on (coder.edit.run.repair)

    @property
    def ok(self) -> bool:
        """True unless refused."""
        return self.refusal is None

    @property
    def path(self) -> Path:
        """Absolute path of the edited file."""
        return self.request.snapshot.path

    @property
    def rel(self) -> str:
        """Path relative to the repository root."""
        return self.request.snapshot.rel

    @property
    def old(self) -> str:
        """The file text the request was built from."""
        return self.request.snapshot.text

    @property
    def mode(self) -> str:
        """``full`` or ``region``."""
        return self.request.mode

    @property
    def request_class(self) -> str:
        """``full``, ``region`` or ``fresh``."""
        return self.request.request_class

    @property
    def k(self) -> int | None:
        """The k the request ran with."""
        return self.request.k.k

    @property
    def k_reason(self) -> str:
        """Why that k."""
        return self.request.k.reason

    @property
    def changed(self) -> bool:
        """True when an accepted proposal changes the file."""
        return self.ok and self.new != self.old

    def to_json(self) -> dict[str, object]:
        """The ``coder edit --json`` form."""
        added, removed = diff_stat(self.diff)
        region = self.request.region
        return {
            "path": self.rel,
            "ok": self.ok,
            "refusal_code": self.refusal_code,
            "refusal": self.refusal,
            "mode": self.mode,
            "mode_reason": self.request.mode_reason,
            "read": self.request.read,
            "read_by": self.request.spec.read_by if self.request.spec is not None else None,
            "read_s": round(self.request.spec.seconds, 3) if self.request.spec is not None else None,
            "request_class": self.request_class,
            "region": asdict(region) if region else None,
            "k": self.k,
            "k_reason": self.k_reason,
            "k_via": self.request.k.via,
            "k_source": getattr(self.request.k, "source", None),
            "predicted": ({m: {**asdict(p), "total": p.total} for m, p in self.request.predictions.items()}
                          if self.request.predictions else None),
            "changed": self.changed,
            "lines_added": added,
            "lines_removed": removed,
            "diff": self.diff,
            "stats": self.stats.to_dict(),
            "validate_s": self.validate_s,
            "token_source": self.request.token_source,
            "scope": self.scope.to_json() if self.scope else None,
            "checks": [c.to_json() for c in self.checks],
            "retried": self.retried,
            "checks_not_run": self.checks_not_run or None,
            "examples": list(self.examples),
            "sampled": self.sampled.to_json() if self.sampled is not None else None,
            "moved": self.moved,
            "repaired": self.repaired,
        }


@dataclass(frozen=True)
class ApplyResult:
    """What applying a proposal did: written or not, the commit, notes for the user."""

    path: str
    written: bool
    commit: str | None = None
    snapshot: str | None = None
    notes: list[str] = field(default_factory=list)


