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
    from coder.backends.runtime.server import ServerInfo

OPENAI_TIMEOUT_S = 60.0  # one token on a busy CPU server, after a prompt of a few tokens


def _binary_checks(profile: Profile) -> list[Check]:
    from coder.backends.engines.llamacpp import capabilities, find_binary
    from coder.backends.installed import find_installed
    from coder.hardware import gpu_compute_capability

    try:
        binary = find_binary(profile)
    except CoderError as exc:
        return [Check("binary", False, str(exc)), *_refused_checks(None)]
    build = find_installed()
    if build and str(binary) == build.binary:
        detail = f"{binary} (b{build.build_number}, {build.variant}, patches: {', '.join(build.patches) or 'none'})"
    else:
        detail = f"{binary} (not built by coder: per-request k cap unknown until probed)"
    checks = [Check("binary", True, detail)]
    if build and str(binary) == build.binary:
        checks.append(_cpu_check(build))
        checks += _refused_checks(build)
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


def _refused_checks(build: InstalledBuild | None) -> list[Check]:
    """One line per CPU configuration refused before ``build`` (or, with no build, refused on this CPU)."""
    from coder.backends.installed import describe_attempt, refusal_attempt, refusals

    attempts = build.attempts if build else [refusal_attempt(r) for r in refusals()]
    return [Check("cpu build tried", None, describe_attempt(a)) for a in attempts]


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


def openai_check(info: ServerInfo) -> Check:
    """Whether the official OpenAI client can use the running server, as any OpenAI-API tool would.

    ``models.list()`` and a 1-token, non-streamed chat completion through ``openai.OpenAI``. coder's own
    requests read the wire protocol directly (no typed objects per token); this row says whether the
    server also speaks the API to the reference client. The key is sent, never shown.
    """
    import openai  # deferred: only this check needs it, never an edit's startup or per-token path
    from openai.types.chat import ChatCompletion

    from coder.textsafe import one_line

    key = info.api_key or "no-key"  # the client refuses an empty key; a keyless server ignores it
    client = openai.OpenAI(base_url=f"{info.url}/v1", api_key=key, max_retries=0, timeout=OPENAI_TIMEOUT_S)
    step = "models.list()"
    try:
        models = [str(m.id) for m in client.models.list()]
        step = "chat.completions.create()"
        reply = client.chat.completions.create(model=info.served_model or (models[0] if models else "default"),
                                               max_tokens=1, temperature=0,
                                               messages=[{"role": "user", "content": "Say OK."}])
        if not isinstance(reply, ChatCompletion) or not reply.choices:
            raise TypeError(f"a {type(reply).__name__}, not a ChatCompletion: {str(reply)[:60]!r}")
    # the client raises its own errors for HTTP and JSON faults, and attribute/type errors when a 200
    # answer has another shape (an HTML page, an event stream for a non-streamed request)
    except (openai.OpenAIError, AttributeError, TypeError, ValueError) as exc:
        what = f"{type(exc).__name__}: {exc}" if isinstance(exc, openai.OpenAIError | ValueError) else \
            f"the answer is not what the OpenAI API returns ({exc})"
        why = one_line(what.replace(key, "<redacted>"))
        return Check("OpenAI API", False, f"openai {openai.__version__}, {step}: {why}")
    finally:
        client.close()
    tokens = reply.usage.completion_tokens if reply.usage else "?"
    return Check("OpenAI API", True, f"openai {openai.__version__}: models.list {len(models)} model(s), "
                 f"chat completion of {tokens} token (finish {reply.choices[0].finish_reason})")


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
        checks.append(openai_check(running))
    else:
        checks.append(Check("server", None, "not running (coder backend start)"))
    return checks
