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

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import tomlkit

from coder.errors import CoderError
from coder.paths import config_dir

ENGINES = ("llama.cpp", "vllm", "sglang")
REQUEST_CLASSES = ("full", "region", "fresh")
DEMO_MODEL = "demo"  # placeholder resolved to the embedded SmolLM2 GGUF


@dataclass
class Profile:
    """How to launch (or reach) one inference server with its speculator."""

    name: str
    engine: str = "llama.cpp"
    binary: str | None = None
    model: str | None = None
    drafter: str | None = None
    spec_type: str = "none"
    k: int | None = None  # launch draft depth (llama.cpp --spec-draft-n-max, vLLM num_speculative_tokens)
    k_by_class: dict[str, int] = field(default_factory=dict)
    adaptive_k: bool = True
    ctx: int = 8192
    ngl: int | None = None
    parallel: int = 1
    reasoning_budget: int | None = 0
    flash_attn: str | None = None
    host: str = "127.0.0.1"
    port: int | None = None
    url: str | None = None  # attached (unmanaged) server
    api_key: str | None = None
    threads: int | None = None
    extra_args: list[str] = field(default_factory=list)
    # vLLM / SGLang launch options
    max_model_len: int | None = None
    gpu_memory_utilization: float | None = None
    max_num_batched_tokens: int | None = None
    tensor_parallel_size: int | None = None
    enable_prefix_caching: bool = False

    @property
    def managed(self) -> bool:
        """True when coder launches this server itself (no fixed URL)."""
        return self.url is None

    def with_overrides(self, **overrides: Any) -> Profile:
        """A copy with every non-None override applied."""
        changes = {k: v for k, v in overrides.items() if v is not None}
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise CoderError(f"unknown profile field(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **changes)


def builtin_profiles() -> dict[str, Profile]:
    """Profiles that work on a fresh install with the embedded demo model."""
    return {
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
    sources: list[Path] = field(default_factory=list)

    def profile(self, name: str | None = None) -> Profile:
        key = name or self.default_profile
        try:
            return self.profiles[key]
        except KeyError:
            known = ", ".join(sorted(self.profiles))
            raise CoderError(f"no profile named {key!r} (known: {known})") from None


def _profile_from(name: str, raw: dict[str, Any], base: Profile | None, source: Path) -> Profile:
    known = {f.name for f in fields(Profile)} - {"name"}
    unknown = set(raw) - known
    if unknown:
        raise CoderError(f"{source}: profile {name!r} has unknown key(s): {', '.join(sorted(unknown))}")
    if raw.get("engine", "llama.cpp") not in ENGINES:
        raise CoderError(f"{source}: profile {name!r}: engine must be one of {', '.join(ENGINES)}")
    bad_classes = set(raw.get("k_by_class", {})) - set(REQUEST_CLASSES)
    if bad_classes:
        raise CoderError(f"{source}: profile {name!r}: k_by_class keys must be full, region or fresh")
    start = base or Profile(name=name)
    try:
        return dataclasses.replace(start, name=name, **raw)
    except TypeError as exc:
        raise CoderError(f"{source}: profile {name!r}: {exc}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CoderError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None


def user_config_path() -> Path:
    return config_dir() / "config.toml"


def load(repo_root: Path | None = None) -> Config:
    """Merge built-in, user and repository configuration."""
    cfg = Config(profiles=builtin_profiles())
    paths = [user_config_path()]
    if repo_root is not None:
        paths.append(repo_root / ".coder.toml")
    for path in paths:
        if not path.exists():
            continue
        raw = _read_toml(path)
        cfg.sources.append(path)
        for name, body in raw.get("profiles", {}).items():
            if not isinstance(body, dict):
                raise CoderError(f"{path}: [profiles.{name}] must be a table")
            cfg.profiles[name] = _profile_from(name, body, cfg.profiles.get(name), path)
        cfg.default_profile = raw.get("default_profile", cfg.default_profile)
        cfg.theme = raw.get("theme", cfg.theme)
        cfg.snapshot_dirty = bool(raw.get("snapshot_dirty", cfg.snapshot_dirty))
    cfg.profile()  # the default must exist
    return cfg


def save_user_setting(path: Path, table: str | None, key: str, value: Any) -> None:
    """Set one key (top level, or in ``[table]``) in a TOML file, keeping the rest.

    Comments and layout are preserved (tomlkit).
    """
    doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    node: Any = doc
    if table:
        for part in table.split("."):
            if part not in node:
                node[part] = tomlkit.table()
            node = node[part]
    node[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(tomlkit.dumps(doc), encoding="utf-8")
    tmp.replace(path)
