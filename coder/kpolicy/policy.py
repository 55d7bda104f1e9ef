"""Per-request-class k: where it comes from, how it is applied, and why.

Precedence for a class's k: a user override (``/k``, ``--k``), then the adaptive
controller (when on), then ``Profile.k_by_class``, then defaults (the drafter's
maximum for ``full``, conservative values for ``region``/``fresh``). How it is
applied depends on the server: a per-request cap (``via="cap"``) on coder's own
llama-server build, a relaunch with the new launch k on managed servers without
the cap (``"restart"``, only when it pays), or nothing at all (``"launch"``: the
launch k stays; ``"recommend"``: an attached server we may not restart).

:meth:`KPolicy.choose` is pure: it returns a :class:`KChoice` and changes nothing
on the server. Its one owner, :class:`coder.backends.runtime.handle.BackendHandle`,
asks for the choice, applies it (relaunching for ``via="restart"``), feeds the finished
request back through :meth:`KPolicy.learn` and re-points the policy at a changed server
through :meth:`KPolicy.follow`.
"""

from __future__ import annotations

from coder.backends.engines.base import k_switch
from coder.backends.engines.registry import adapter_for
from coder.backends.runtime.server import ServerInfo
from coder.config import REQUEST_CLASSES, Profile
from coder.errors import CoderError
from coder.jsontypes import JSONObject
from coder.kchoice import KChoice
from coder.kpolicy import depth
from coder.kpolicy.controller import KController, stats_path
from coder.kpolicy.restart import Notify, RestartFallback
from coder.spec_vocab import ABSOLUTE_MAX_K  # sanity bound when the drafter's own limit is unknown
from coder.telemetry.metrics import SpecDelta
from coder.telemetry.stats import Timings

# conservative defaults for the shallow classes (bench on CPU: see scripts/bench_k.py)
DEFAULT_K = {"region": 4, "fresh": 3}


def _check_class(request_class: str) -> str:
    if request_class not in REQUEST_CLASSES:
        raise CoderError(f"unknown request class {request_class!r} (use {', '.join(REQUEST_CLASSES)})")
    return request_class


class KPolicy:
    """Chooses k per request class for one profile and the server it runs on."""

    def __init__(self, profile: Profile, server: ServerInfo, *, controller: KController | None = None,
                 adaptive: bool | None = None, notify: Notify | None = None, persist: bool = True) -> None:
        self.profile = profile
        self.server = server
        self.notify = notify or (lambda msg: None)
        self._overrides: dict[str | None, int] = {}
        self.last: dict[str, KChoice] = {}
        self._recent: list[str] = []  # classes of recent requests, for run-length estimates
        self._tokens: dict[str, float] = {}  # EMA of output tokens per request, per class
        for cls, k in profile.k_by_class.items():
            self.validate(k, f"profile {profile.name}: k_by_class.{cls}")
        learns = adapter_for(server.engine).streams_draft_counters
        on = profile.adaptive_k and learns if adaptive is None else adaptive
        if controller is None and on and self.speculating:
            path = stats_path(profile.name, f"{server.spec_type}-{_model_name(server)}") if persist else None
            controller = KController(self.adaptive_max, path=path,
                                     start=depth.start_depths(server.spec_type, self.on_gpu))
        self.controller = controller if on else None
        self.fallback = RestartFallback(profile, persist=persist) if k_switch(server) == "restart" else None

    # ---- limits -------------------------------------------------------------------------
    @property
    def speculating(self) -> bool:
        """True when the server runs a speculator with a launch k."""
        return self.server.k is not None and self.server.spec_type not in (None, "none")

    @property
    def launch_k(self) -> int | None:
        """The server's launch draft depth."""
        return self.server.k

    @property
    def hard_max(self) -> int:
        """Deepest k the drafter supports (block size − 1 for block drafters).

        In a copy chain the cap is the copy drafter's depth; the model drafter's own launch
        limit keeps it at its block.
        """
        if depth.is_copy_chain(self.server.spec_type):
            return ABSOLUTE_MAX_K
        return self.server.k_max or ABSOLUTE_MAX_K

    @property
    def adaptive_max(self) -> int:
        """Deepest k reachable without a restart (a cap never raises the launch depth)."""
        deepest = depth.launch_depth(self.server.spec_type, self.launch_k, self.on_gpu)
        return min(deepest or 1, self.hard_max)

    @property
    def on_gpu(self) -> bool:
        """Whether the target runs on a GPU (deep copy drafts pay there, not on a CPU)."""
        return self.server.on_gpu

    def validate(self, k: object, what: str = "k") -> int:
        """``k`` as an int within what this server can do, else a one-line CoderError."""
        if isinstance(k, bool) or not isinstance(k, int):
            raise CoderError(f"{what} must be a whole number, got {k!r}")
        if k < 1:
            raise CoderError(f"{what} must be at least 1, got {k} (k is the number of draft tokens per "
                             "step; to turn speculation off use a profile with spec_type = \"none\")")
        if k > self.hard_max:
            limit = f"the drafter's maximum k={self.server.k_max}" if self.server.k_max else \
                f"the sanity limit of {ABSOLUTE_MAX_K}"
            raise CoderError(f"{what}={k} is above {limit}")
        if self.server.draft_cap and self.launch_k is not None and k > self.adaptive_max:
            raise CoderError(f"{what}={k} is above the launch k={self.adaptive_max}: the per-request cap can "
                             f"only lower the draft depth (relaunch with `coder backend start --k {k}`)")
        return k

    # ---- user overrides -----------------------------------------------------------------
    def override(self, k: int | None, request_class: str | None = None) -> None:
        """Pin k for one class (or all with None); ``k=None`` removes the pin."""
        if request_class is not None:
            _check_class(request_class)
        if k is None:
            self._overrides.pop(request_class, None)
            return
        self._overrides[request_class] = self.validate(k)

    def overrides(self) -> dict[str, int]:
        """The pinned k per class (``all`` for a pin on every class)."""
        return {(c or "all"): k for c, k in self._overrides.items()}

    # ---- choice -------------------------------------------------------------------------
    def desired(self, request_class: str) -> tuple[int, str, str, bool]:
        """(k, source, reason, explicit) before considering how it can be applied."""
        cls = _check_class(request_class)
        for key in (cls, None):
            if key in self._overrides:
                scope = f"/k for {cls}" if key else "/k for all classes"
                return self._overrides[key], "override", f"user override ({scope})", True
        if self.controller is not None:
            d = self.controller.choose(cls)
            return d.k, "adaptive", d.reason, False
        if cls in self.profile.k_by_class:
            return self.profile.k_by_class[cls], "profile", f"profile {self.profile.name} k_by_class", False
        if self.server.draft_cap and depth.deep_copy(self.server.spec_type, self.on_gpu):
            k = depth.copy_depth(cls, self.on_gpu, self.launch_k, self.adaptive_max)
            where = "GPU: deep copy drafts" if self.on_gpu else "CPU: shallow copy drafts"
            what = "model drafter at its block" if cls == "fresh" else where
            return k, "default", f"default for a copy chain ({what})", False
        deepest = self.server.k_max or self.launch_k or 1
        if self.server.draft_cap:
            deepest = self.adaptive_max
        if cls == "full":
            return deepest, "default", "default: full rewrites use the deepest k (long copy runs)", False
        k = min(DEFAULT_K[cls], deepest)
        return k, "default", f"default: conservative k for {cls} (short copy runs)", False

    def choose(self, request_class: str) -> KChoice:
        """The k for the next request of ``request_class``; pure apart from remembering it.

        ``via="restart"`` asks the caller to relaunch at ``k`` (BackendHandle.apply).
        """
        cls = _check_class(request_class)
        self._recent = [*self._recent, cls][-50:]
        if not self.speculating:
            return self._remember(KChoice(None, cls, "server runs without speculation", "launch"))
        k, source, reason, explicit = self.desired(cls)
        if self.server.draft_cap:
            k = min(k, self.adaptive_max)
            return self._remember(KChoice(k, cls, reason, "cap", source))
        launch = self.launch_k
        assert launch is not None
        if k == launch:
            return self._remember(KChoice(k, cls, f"{reason} (= launch k)", "launch", source))
        if self.fallback is None:
            return self._remember(KChoice(launch, cls, f"{reason}; this server is not managed by coder, "
                                          f"so it keeps launch k={launch}", "recommend", source,
                                          recommended=k))
        verdict = self.fallback.verdict(launch, k, self._rate, self._coming_tokens(cls), forced=explicit)
        if not verdict.restart:
            return self._remember(KChoice(launch, cls, f"{reason}; {verdict.reason}", "launch", source,
                                          recommended=k))
        return self._remember(KChoice(k, cls, f"{reason}; {verdict.reason}", "restart", source))

    def follow(self, server: ServerInfo | None, restart_s: float | None = None) -> None:
        """Re-point at a changed backend; ``restart_s`` is the measured relaunch time, if it was one.

        Idempotent: several subscribers may forward the same change (the edit engine and
        the UI); only the first one counts the restart.
        """
        if server is None or server is self.server:
            return
        self.server = server
        if restart_s is not None and self.fallback is not None:
            self.fallback.record(restart_s)
            self.fallback.profile = self.fallback.profile.with_overrides(k=server.k)
            self.notify(f"backend {self.profile.name} restarted with k={server.k} in {restart_s:.1f} s")

    def _remember(self, choice: KChoice) -> KChoice:
        self.last[choice.request_class] = choice
        return choice

    def _rate(self, k: int) -> float | None:
        """Predicted tokens/s at k for the class being decided (the controller's view)."""
        if self.controller is None or not self._recent:
            return None
        cls = self._recent[-1]
        if k > self.controller.k_max:
            return None  # never observed above the launch depth on a stock server
        value, _ = self.controller.scores(cls)[k]
        return value * 1000 if self.controller.cost.coefficients() else None

    def _coming_tokens(self, cls: str) -> float:
        """Output tokens expected before the class changes: mean run length × tokens/request."""
        return _mean_run(self._recent, cls) * self._tokens.get(cls, 400.0)

    # ---- learning -----------------------------------------------------------------------
    def learn(self, request_class: str, k: int | None, timings: Timings, delta: SpecDelta | None = None,
              alone: bool | None = None) -> None:
        """One finished request of ``request_class`` run at ``k``: its llama.cpp ``timings`` and the
        ``/metrics`` delta taken around it. ``alone`` defaults to "the window's draft tokens are
        exactly this request's", which fails when another request overlapped."""
        n = float(timings.get("predicted_n") or 0)
        if n:
            prev = self._tokens.get(request_class)
            self._tokens[request_class] = n if prev is None else 0.7 * prev + 0.3 * n
        if alone is None:
            drafted = float(timings.get("draft_n") or 0)
            alone = delta is not None and abs(delta.draft_tokens - drafted) < 0.5
        if self.controller is not None and k is not None:
            self.controller.observe(request_class, k, timings, delta, alone)

    # ---- visibility ---------------------------------------------------------------------
    def describe(self) -> JSONObject:
        """Everything the TUI speculation panel and ``--json`` outputs show about k."""
        return {
            "profile": self.profile.name,
            "engine": self.server.engine,
            "managed": self.server.managed,
            "draft_cap": self.server.draft_cap,
            "launch_k": self.launch_k,
            "k_max": self.server.k_max,
            "adaptive": self.controller is not None,
            "overrides": self.overrides(),
            "classes": {cls: self._describe_class(cls) for cls in REQUEST_CLASSES},
            "restart_cost_s": round(self.fallback.cost_s, 2) if self.fallback else None,
            "controller": self.controller.describe() if self.controller else None,
        }

    def _describe_class(self, cls: str) -> JSONObject:
        last = self.last.get(cls)
        return {"last": last.to_dict() if last else None}


def _mean_run(seq: list[str], cls: str) -> float:
    """Mean length of consecutive runs of ``cls`` in ``seq`` (1 when it never repeated)."""
    runs: list[int] = []
    prev = None
    for c in seq:
        if c == cls:
            if prev == cls:
                runs[-1] += 1
            else:
                runs.append(1)
        prev = c
    return sum(runs) / len(runs) if runs else 1.0


def _model_name(server: ServerInfo) -> str:
    from pathlib import Path

    return Path(server.model or "model").stem
