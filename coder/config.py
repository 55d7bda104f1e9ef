"""Configuration: named backend profiles in TOML.

Lookup order (later wins): built-in defaults, ``config.toml`` in the platformdirs
config dir, then ``.coder.toml`` at the repository root. Example::

    default_profile = "qwen-dflash2"

    [profiles.qwen-dflash2]
    engine = "llama.cpp"
    model = "~/models/Qwen3.8-27B-Q4_K_M.gguf"
    drafter = "~/models/Qwen3.8-27B-DFlash2-Q8_0.gguf"
    spec_type = "draft-dflash"
    k = 7
    ctx = 65536
    ngl = 999
    flash_attn = "on"

    [profiles.qwen-dflash2.k_by_class]
    full = 7
    region = 5
    fresh = 3
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder.config_schema import (
    ENGINES,
    REQUEST_CLASSES,
    TRUSTED_SETTINGS,
    FileSettings,
    Profile,
    build_profile,
    parse_file,
)
from coder.errors import CoderError
from coder.fsutil import atomic_write
from coder.paths import config_dir

__all__ = ["DEMO_MODEL", "ENGINES", "QWEN_0_5B", "QWEN_1_5B", "REQUEST_CLASSES", "Config", "Profile",
           "builtin_profiles", "load", "read_toml", "repo_config_path", "save_user_setting", "user_config_path"]

DEMO_MODEL = "demo"  # placeholder resolved to the embedded SmolLM2 GGUF
# catalog names (coder.models.catalog), resolved to the installed file once `coder model fetch NAME` ran
QWEN_1_5B = "qwen-coder-1.5b"
QWEN_0_5B = "qwen-coder-0.5b"
REAL_CTX = 16384  # a 490-line file and its rewrite fit; the 1.5B model's KV cache at this size is ~0.5 GB


def builtin_profiles() -> dict[str, Profile]:
    """Profiles that work on a fresh install: the demo model, and the Qwen2.5-Coder models once fetched."""
    return {
        # coder's copy drafters: the prediction drafter (coder's build carries its patch; it drafts the
        # original file the edit mostly copies) in front of n-gram lookup. k is the launch depth; the
        # k policy keeps per-request drafts shallow on a CPU and deep on a GPU
        "qwen-1.5b": Profile(name="qwen-1.5b", model=QWEN_1_5B, spec_type="prediction,ngram-mod", k=8, ctx=REAL_CTX),
        "qwen-0.5b": Profile(name="qwen-0.5b", model=QWEN_0_5B, spec_type="ngram-mod", k=8, ctx=REAL_CTX),
        # same tokenizer (qwen2, 151,936 tokens): the 0.5B model drafts for the 1.5B one
        "qwen-1.5b-draft": Profile(name="qwen-1.5b-draft", model=QWEN_1_5B, drafter=QWEN_0_5B,
                                   spec_type="draft-simple", k=4, ctx=REAL_CTX),
        "demo": Profile(name="demo", model=DEMO_MODEL, spec_type="ngram-mod", k=8, ctx=8192),
        "demo-self": Profile(
            name="demo-self", model=DEMO_MODEL, drafter=DEMO_MODEL, spec_type="draft-simple", k=8
        ),
        # a copy drafter chained in front of a model drafter: n-gram lookup drafts the copied
        # text (deep), the model (drafting for itself) the rest; on coder's own build a profile
        # may put "prediction" first (spec_type = "prediction,ngram-mod,draft-simple")
        "demo-hybrid": Profile(
            name="demo-hybrid", model=DEMO_MODEL, drafter=DEMO_MODEL, spec_type="ngram-mod,draft-simple", k=8
        ),
    }


@dataclass
class Config:
    """All profiles plus app-level settings."""

    profiles: dict[str, Profile]
    default_profile: str = "demo"
    theme: str | None = None
    snapshot_dirty: bool = True
    warm_up: str = "managed"  # prompt-cache warm-up: managed servers | "always" (attached too) | "off"
    test_command: str | None = None  # run on each proposal before applying (coder.edit.checks.user_commands)
    lint_command: str | None = None
    check_timeout: float = 120.0
    sources: list[Path] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # one line per untrusted file
    # an untrusted repository's test/lint commands: the line each edit says instead of running them
    commands_not_run: str | None = None

    def profile(self, name: str | None = None) -> Profile:
        """The profile called ``name`` (default: ``default_profile``)."""
        key = name or self.default_profile
        try:
            return self.profiles[key]
        except KeyError:
            from coder.textsafe import one_line

            known = one_line(", ".join(sorted(self.profiles)), 400)
            if name is None:  # a config file's value: not quoted (see config_schema.shown_value)
                raise CoderError(f"default_profile names no profile that exists (known: {known})") from None
            raise CoderError(f"no profile named {one_line(key, 64)!r} (known: {known})") from None


MAX_CONFIG_BYTES = 256 * 1024  # a real config is a few KB; a repository's file is not read past this
MAX_CONFIG_DEPTH = 16  # tables and arrays inside each other (a real config needs 4)


def _depth(value: object) -> int:
    """How deeply tables and arrays nest in a parsed document (iterative: no recursion limit to hit)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_CONFIG_DEPTH:
            break
        if isinstance(node, dict):
            stack.extend((v, level + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, level + 1) for v in node)
    return deepest


def read_toml(path: Path, *, follow_links: bool = True) -> tuple[bytes, dict[str, object]]:
    """The file's bytes (hashed for trust) and its parsed TOML; one line for any problem.

    Size (checked before reading) and nesting depth are bounded, so a hostile
    ``.coder.toml`` costs neither memory nor a RecursionError. Without ``follow_links``
    a symbolic link is refused by the open itself (``O_NOFOLLOW``: no check-then-open race).
    """
    flags = os.O_RDONLY | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CoderError(symlink_line(path)) from None
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_CONFIG_BYTES:
                raise CoderError(f"{path}: {size:,} bytes is too large for a config file "
                                 f"(limit {MAX_CONFIG_BYTES // 1024} KiB)")
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CoderError(f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
                         "TOML files must be UTF-8") from None
    too_deep = f"{path}: tables and arrays nested more than {MAX_CONFIG_DEPTH} deep; not a coder config"
    import tomllib  # deferred: only a file that exists is parsed (most commands run on the built-in defaults)

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # tomllib names the line and column, never the value
        raise CoderError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise CoderError(too_deep) from None
    if _depth(doc) > MAX_CONFIG_DEPTH:
        raise CoderError(too_deep)
    return data, doc


def user_config_path() -> Path:
    """The user's config file (``config.toml`` in the platform config dir)."""
    return config_dir() / "config.toml"


def repo_config_path(repo_root: Path) -> Path:
    """The repository's own config file, ``.coder.toml`` at its root (read only once trusted)."""
    return repo_root / ".coder.toml"


def symlink_line(path: Path) -> str:
    """The one line refusing a repository config that is a symbolic link (trust must not move with it)."""
    return (f"{path} is a symbolic link: not read (a repository's .coder.toml must be a regular file "
            "inside it; replace the link with a copy)")


def _is_foreign(path: Path, repo_root: Path) -> bool:
    """True when the repository's config is a link or lies outside the repository.

    A link would let a repository borrow another one's trusted file while its own
    relative paths and programs run, or have coder parse (and quote) a file elsewhere.
    """
    return path.is_symlink() or not path.resolve().is_relative_to(repo_root.resolve())


def _check_repo_binaries(profiles: dict[str, dict[str, object]], path: Path) -> None:
    """A repository config names a program by an absolute path only (a relative one is never resolved)."""
    for name, body in profiles.items():
        binary = body.get("binary") if isinstance(body, dict) else None
        if isinstance(binary, str) and not Path(binary).expanduser().is_absolute():
            raise CoderError(f"{path}: profiles.{name}.binary: a repository's .coder.toml must name the "
                             "program by an absolute path (a relative one would run whatever file the "
                             "current directory holds under that name)")


def _anchor_own_binaries(profiles: dict[str, dict[str, object]], path: Path) -> None:
    """In the user's own config a relative ``binary`` path means relative to that file, never to the cwd."""
    for body in profiles.values():
        binary = body.get("binary") if isinstance(body, dict) else None
        if isinstance(binary, str) and "/" in binary and not Path(binary).expanduser().is_absolute():
            body["binary"] = str(path.parent / binary)


def load(repo_root: Path | None = None) -> Config:
    """Merge built-in, user and repository configuration, validating every value.

    The user's own file is trusted. A repository's ``.coder.toml`` sets the settings
    that run programs or widen exposure only once trusted (``coder trust``); until then
    they are dropped and one line on stderr says which. A repository's file that is a
    symbolic link is not read at all, and its ``binary`` must be an absolute path.
    """
    cfg = Config(profiles=builtin_profiles())
    paths = [(user_config_path(), True)]
    if repo_root is not None:
        paths.append((repo_config_path(repo_root), False))
    for path, own in paths:
        if not own and repo_root is not None and _is_foreign(path, repo_root):
            from coder.trust import notify_once  # deferred: only a repository's own file may need trust

            cfg.ignored.append(symlink_line(path))  # doctor lists it; every command says it once
            notify_once(symlink_line(path))
            continue
        if not path.is_file():
            continue
        data, raw = read_toml(path, follow_links=own)
        settings = parse_file(raw, path)
        cfg.sources.append(path)
        profiles, commands = _usable(cfg, settings, path, data, own)
        for name, body in profiles.items():
            cfg.profiles[name] = build_profile(name, body, cfg.profiles.get(name), path)
        _take(cfg, settings, ["default_profile", "theme", "snapshot_dirty", "warm_up", "check_timeout", *commands])
    cfg.profile()  # the default must exist
    return cfg


def _take(cfg: Config, settings: FileSettings, keys: list[str]) -> None:
    """The top-level ``keys`` a file sets (later files win)."""
    for key in keys:
        if (value := getattr(settings, key)) is not None:
            setattr(cfg, key, value)


def _usable(cfg: Config, settings: FileSettings, path: Path, data: bytes,
            own: bool) -> tuple[dict[str, dict[str, object]], list[str]]:
    """The profile tables and trust-only top-level settings (the test/lint commands) of one file that may apply.

    An untrusted repository file loses its trust-only settings; a trusted one still never names a
    binary relative to the current directory.
    """
    profiles = settings.profiles
    commands = [k for k in TRUSTED_SETTINGS if getattr(settings, k) is not None]
    if own:
        _anchor_own_binaries(profiles, path)
        return profiles, commands
    from coder import trust

    known = _known_models(cfg.profiles)
    keys = [*trust.untrusted_keys(profiles, known), *commands]
    if keys and not trust.is_trusted(path, data):
        for name, body in profiles.items():  # a wrong value is an error even where it is ignored
            build_profile(name, body, cfg.profiles.get(name), path)
        cfg.ignored.append(trust.ignored_line(path, keys))  # doctor lists every key
        if settings_keys := keys[:len(keys) - len(commands)]:
            trust.notify_once(trust.ignored_line(path, settings_keys))
        if commands:  # said by the edit that would have run them (CLI, --json, TUI), once, not at every load
            cfg.commands_not_run = trust.commands_not_run_line(path, commands)
        return trust.strip_untrusted(profiles, known), []
    _check_repo_binaries(profiles, path)
    return profiles, commands


def _known_models(profiles: dict[str, Profile]) -> set[str]:
    """Model names the user already has: the demo model and every model the user's own config names."""
    return {DEMO_MODEL} | {m for p in profiles.values() for m in (p.model, p.drafter) if m}


def save_user_setting(path: Path, table: str | None, key: str, value: str | int | float | bool) -> None:
    """Set one key (top level, or in ``[table]``) in a TOML file, keeping the rest.

    Comments and layout are preserved (tomlkit).
    """
    import tomlkit  # deferred: only writing needs it (~0.03 s of every command's start)

    doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    node: Any = doc
    if table:
        for part in table.split("."):
            if part not in node:
                node[part] = tomlkit.table()
            node = node[part]
    node[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, tomlkit.dumps(doc))
