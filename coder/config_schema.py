"""The typed configuration schema: every field's type, range and default, defined once.

:class:`Profile` is a strict pydantic dataclass, so the same rules hold for a TOML file,
a command-line override (``--k``) and a profile built in code: ``k = 7.5``,
``snapshot_dirty = "no"`` or ``extra_args = "--foo"`` are errors, never coerced.
Violations become one :class:`~coder.errors.CoderError` line naming the file, the
key, the kind of value found and what was expected. A value itself is never quoted
(a config file, or whatever it links to, may hold a token) unless it is one of the
schema's own names (an engine, a spec type, a request class).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator
from pydantic.dataclasses import dataclass

from coder.errors import CoderError
from coder.spec_vocab import ABSOLUTE_MAX_K, known_spec_types

ENGINES = ("llama.cpp", "vllm", "sglang")
REQUEST_CLASSES = ("full", "region", "fresh")
Engine = Literal["llama.cpp", "vllm", "sglang"]
RequestClass = Literal["full", "region", "fresh"]
NonNegInt = Annotated[int, Field(ge=0)]
PosInt = Annotated[int, Field(gt=0)]
Port = Annotated[int, Field(ge=1, le=65535)]
KDepth = Annotated[int, Field(ge=0, le=ABSOLUTE_MAX_K)]
NonEmpty = Annotated[str, Field(min_length=1)]
# Profile names become state file names (servers/NAME.json): no separators, no dot-dot.
_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
_NAME = re.compile(_NAME_PATTERN)
ProfileName = Annotated[str, Field(pattern=_NAME_PATTERN)]

# Fields a repository's .coder.toml may set only once the user trusted that file
# (``coder trust``): each runs a program, picks which one runs, or widens who can reach
# the server or where the code is sent. Audit of every Profile field:
#   binary      the executable coder launches (and runs ``--help`` of in doctor/dry-run)
#   engine      picks the program; sglang runs ``python3 -m sglang.launch_server``, and
#               ``python -m`` imports from the working directory, i.e. the repository
#   extra_args  any server flag: --host, --api-key, --rpc, --chat-template-file, ...
#   host        the bind address: anything but loopback exposes the server
#   url         an attached server: prompts (your code) go wherever it points
#   api_key     the key sent to that URL
#   model, drafter  files the engine parses (a crafted GGUF is parser attack surface; a hub
#               id downloads); allowed untrusted only as the name of a model the user
#               already has (``demo``, or one the user's own config names): NAMED_MODEL_KEYS
#   ctx, threads, parallel, max_model_len, max_num_batched_tokens, gpu_memory_utilization,
#   tensor_parallel_size  how much memory, how many cores and GPUs the engine takes
# Everything else is a small number or a known name.
NAMED_MODEL_KEYS = ("model", "drafter")
# Top-level settings that need trust the same way: each is a shell command coder runs on
# every proposal before applying it (coder.edit.checks.user_commands)
TRUSTED_SETTINGS = ("test_command", "lint_command")
TRUSTED_ONLY = ("binary", "engine", "extra_args", "host", "url", "api_key", *NAMED_MODEL_KEYS, "ctx", "threads",
                "parallel", "max_model_len", "max_num_batched_tokens", "gpu_memory_utilization",
                "tensor_parallel_size")

_STRICT = ConfigDict(strict=True, extra="forbid")
NAME_MAX, PATH_MAX = 255, 4095  # Linux limits for one path component and a whole path


@dataclass(config=_STRICT)
class Profile:
    """How to launch (or reach) one inference server with its speculator."""

    name: ProfileName
    engine: Engine = "llama.cpp"
    binary: NonEmpty | None = None
    model: NonEmpty | None = None
    drafter: NonEmpty | None = None
    spec_type: NonEmpty = "none"  # comma chains allowed (``ngram-mod,draft-simple``)
    k: KDepth | None = None  # launch draft depth (llama.cpp --spec-draft-n-max, vLLM num_speculative_tokens)
    k_by_class: dict[RequestClass, KDepth] = dataclasses.field(default_factory=dict)
    adaptive_k: bool = True
    ctx: PosInt = 8192
    ngl: Annotated[int, Field(ge=-1)] | None = None
    parallel: PosInt = 1
    reasoning_budget: Annotated[int, Field(ge=-1)] | None = 0
    flash_attn: Literal["on", "off", "auto"] | None = None
    host: NonEmpty = "127.0.0.1"
    port: Port | None = None
    url: NonEmpty | None = None  # attached (unmanaged) server
    api_key: NonEmpty | None = None
    threads: PosInt | None = None
    extra_args: list[str] = dataclasses.field(default_factory=list)
    # vLLM / SGLang launch options
    max_model_len: PosInt | None = None
    gpu_memory_utilization: Annotated[float, Field(gt=0, le=1)] | None = None
    max_num_batched_tokens: PosInt | None = None
    tensor_parallel_size: PosInt | None = None
    enable_prefix_caching: bool = False

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("expected an http:// or https:// URL")
        return value

    @field_validator("binary", "model", "drafter")
    @classmethod
    def _path_like(cls, value: str | None) -> str | None:
        # a name no file system can hold is refused here, not as OSError ENAMETOOLONG later
        if value is not None:
            if "\0" in value:
                raise ValueError("expected a path (it contains a NUL byte)")
            if len(value.encode("utf-8", "surrogateescape")) > PATH_MAX or any(
                    len(part.encode("utf-8", "surrogateescape")) > NAME_MAX for part in value.split("/")):
                raise ValueError(f"expected a path of at most {PATH_MAX} bytes with parts of at most "
                                 f"{NAME_MAX} bytes (it names no file that can exist)")
        return value

    @property
    def managed(self) -> bool:
        """True when coder launches this server itself (no fixed URL)."""
        return self.url is None

    def anchored(self, base: Path) -> Profile:
        """Relative ``binary``/``model``/``drafter`` paths that exist under ``base``, made absolute.

        Servers are launched outside the repository (``python -m`` imports from its
        working directory), so a path written relative to where coder runs must not
        silently change meaning. Names that are no path there (``demo``, a hub id) stay.
        """
        changes: dict[str, Any] = {}
        for key in ("binary", "model", "drafter"):
            value = getattr(self, key)
            if key == "binary" and value and "/" not in value:
                continue  # a bare program name is looked up on PATH: a file of that name in ``base`` must not win
            if value and not Path(value).expanduser().is_absolute() and (base / value).exists():
                changes[key] = str((base / value).resolve())
        return dataclasses.replace(self, **changes) if changes else self

    def with_overrides(self, **overrides: object) -> Profile:
        """A copy with every non-None override applied (validated like a config file)."""
        # pydantic validates each value at runtime (dataclasses.replace runs the validators)
        changes: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise CoderError(f"unknown profile field(s): {', '.join(sorted(unknown))}")
        try:
            return dataclasses.replace(self, **changes)
        except ValidationError as exc:
            raise CoderError(describe(exc, f"profile {self.name!r}")) from None


@dataclass(config=_STRICT)
class FileSettings:
    """The top level of ``config.toml`` / ``.coder.toml`` (profiles are checked one by one)."""

    default_profile: NonEmpty | None = None
    theme: NonEmpty | None = None
    snapshot_dirty: bool | None = None
    warm_up: Literal["managed", "always", "off"] | None = None  # prompt-cache warm-up (attached servers: "always")
    test_command: NonEmpty | None = None  # run on each proposal before applying (trusted files only)
    lint_command: NonEmpty | None = None
    check_timeout: Annotated[float, Field(gt=0, le=3600)] | None = None  # seconds each of them may take
    profiles: dict[str, dict[str, object]] = dataclasses.field(default_factory=dict)


def check_profile_name(name: str) -> str:
    """``name`` when it is a valid profile name (it becomes a file name under coder's state dir)."""
    if not _NAME.fullmatch(name):
        raise CoderError(f"{name!r} is not a profile name (letters, digits, '.', '_' and '-', at most 64)")
    return name


def _expected(error: Any) -> str:
    """pydantic's message, phrased as what was expected."""
    msg = str(error["msg"])
    for prefix in ("Input should be ", "Value error, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    if error["type"] == "unexpected_keyword_argument":
        return "no such setting"
    return msg if msg.startswith("expected") else f"expected {msg}"


def _enum_values() -> frozenset[str]:
    """Every name the schema itself defines: the only config values an error line may quote."""
    names = {*ENGINES, *REQUEST_CLASSES, "on", "off", "auto", "managed", "always"}
    for engine in ENGINES:
        names.update(known_spec_types(engine))
    return frozenset(names)


def shown_value(value: object) -> str:
    """How an error line shows a config value: quoted when it is a schema name, else only its kind."""
    if isinstance(value, str) and value in _enum_values():
        return repr(value)
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    kinds = {int: "an integer", float: "a number", list: "an array", dict: "a table"}
    return next((kind for t, kind in kinds.items() if isinstance(value, t)), f"a {type(value).__name__}")


def shown_key(key: object) -> str:
    """A key of a config file for an error line: made visible and cut short (it is the file's text)."""
    from coder.textsafe import one_line

    return one_line(str(key), 64)


def shown_unknown_key(key: object) -> str:
    """An unknown key: named when it reads like a mistyped setting name, else only its length.

    Settings are lowercase words joined by ``_``; anything else (digits, a token's
    shape) may be a secret that the key position of a linked file happened to hold.
    """
    text = str(key)
    return text if re.fullmatch(r"[a-z_]{1,32}", text) else f"(a key of {len(text)} characters)"


def describe(exc: ValidationError, where: str, prefix: str = "") -> str:
    """One line for the first violation: ``where: key: got <kind>, expected ...`` (see :func:`shown_value`)."""
    error = exc.errors()[0]
    is_key = "[key]" in error["loc"]  # the table key itself is wrong (k_by_class.foo), not its value
    loc = [str(p) for p in error["loc"] if p != "[key]"]
    if is_key:
        loc = loc[:-1]
    key = shown_key(".".join([prefix, *loc] if prefix else loc) or "(top level)")
    value = error.get("input")
    if is_key:
        return f"{where}: {key}: unknown key {shown_unknown_key(value)}: {_expected(error)}"
    return f"{where}: {key}: got {shown_value(value)}, {_expected(error)}"


def check_spec_type(profile: Profile, where: str) -> None:
    """A comma chain whose every element is a spec type known for the profile's engine."""
    known = known_spec_types(profile.engine)
    parts = [p.strip() for p in profile.spec_type.split(",")]
    bad = [p for p in parts if p not in known]
    if bad or (len(parts) > 1 and "none" in parts):
        what = ", ".join(shown_value(p) for p in bad) if bad else "'none' inside a chain"
        raise CoderError(f"{where}: profiles.{profile.name}.spec_type: got {what}, expected one "
                         f"of {', '.join(known)} (or a comma chain of them) for engine {profile.engine}")


def parse_file(data: Mapping[str, object], path: Path) -> FileSettings:
    """Validate the top level of one TOML document."""
    fields: dict[str, Any] = dict(data)  # pydantic checks each value's type at runtime, below
    try:
        return FileSettings(**fields)
    except ValidationError as exc:
        raise CoderError(describe(exc, str(path))) from None
    except TypeError:  # a non-identifier key, e.g. "1" at the top level
        odd = next((k for k in fields if not k.isidentifier()), "")
        raise CoderError(f"{path}: unknown top-level key {shown_unknown_key(odd)}") from None


def build_profile(name: str, raw: object, base: Profile | None, path: Path) -> Profile:
    """``base`` (or the defaults) with the keys of ``[profiles.NAME]`` applied, validated."""
    if not isinstance(raw, dict):
        raise CoderError(f"{path}: profiles.{shown_key(name)}: got {shown_value(raw)}, expected a table "
                         f"([profiles.{shown_key(name)}])")
    if not _NAME.fullmatch(name):
        raise CoderError(f"{path}: profiles.{shown_key(name)!r}: expected a profile name of letters, digits, "
                         "'.', '_' and '-' (at most 64, starting with a letter or digit)")
    start = base or Profile(name=name)
    settings = [f.name for f in dataclasses.fields(Profile) if f.name != "name"]
    if bad := [k for k in raw if k not in settings]:
        raise CoderError(f"{path}: profiles.{name}: unknown key(s): {shown_unknown_key(bad[0])}; "
                         f"expected one of {', '.join(settings)}")
    try:
        profile = dataclasses.replace(start, name=name, **raw)
    except ValidationError as exc:
        raise CoderError(describe(exc, str(path), f"profiles.{name}")) from None
    check_spec_type(profile, str(path))
    return profile
