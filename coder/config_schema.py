"""The typed configuration schema: every field's type, range and default, defined once.

:class:`Profile` is a strict dataclass checked against its own annotations whenever one is made
(:func:`_validate`, from ``__post_init__``, so ``dataclasses.replace`` checks too): the same rules
hold for a TOML file, a command-line override (``--k``) and a profile built in code. ``k = 7.5``,
``snapshot_dirty = "no"`` or ``extra_args = "--foo"`` are errors, never coerced. Violations become
one :class:`~coder.errors.CoderError` line naming the file, the key, the kind of value found and
what was expected. A value itself is never quoted (a config file, or whatever it links to, may hold
a token) unless it is one of the schema's own names (an engine, a spec type, a request class).

The checks are coder's own, not pydantic's: importing pydantic and building its validators was about
a quarter of ``coder edit``'s import time (issue 35), for the handful of types below.
"""

from __future__ import annotations

import dataclasses
import re
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from coder import lazy
from coder.errors import CoderError
from coder.spec_vocab import ABSOLUTE_MAX_K, known_spec_types


@dataclasses.dataclass(frozen=True)
class Bounds:
    """A number's range (``Annotated[int, Bounds(ge=0)]``); each bound is shown as written."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None


@dataclasses.dataclass(frozen=True)
class Rule:
    """A check on a value that already has its type: ``expected ...`` text when it fails, else None."""

    check: Callable[[str], str | None]  # every rule checks text (names, URLs, paths)


class SchemaError(ValueError):
    """One value the schema refuses: its place (field, then table keys and list indexes) and what was expected.

    ``key`` marks a table key that is itself wrong (``k_by_class.foo``); ``value`` is then that key.
    """

    def __init__(self, loc: tuple[str, ...], expected: str, value: object, *, key: bool = False) -> None:
        super().__init__(f"{'.'.join(loc)}: {expected}")
        self.loc, self.expected, self.value, self.key = loc, expected, value, key


def _min_length(n: int) -> Rule:
    return Rule(lambda v: None if len(v) >= n else f"expected at least {n} character{'s' * (n != 1)}")


ENGINES = ("llama.cpp", "vllm", "sglang")
REQUEST_CLASSES = ("full", "region", "fresh")
Engine = Literal["llama.cpp", "vllm", "sglang"]
RequestClass = Literal["full", "region", "fresh"]
NonNegInt = Annotated[int, Bounds(ge=0)]
PosInt = Annotated[int, Bounds(gt=0)]
Port = Annotated[int, Bounds(ge=1, le=65535)]
KDepth = Annotated[int, Bounds(ge=0, le=ABSOLUTE_MAX_K)]
NonEmpty = Annotated[str, _min_length(1)]
# Profile names become state file names (servers/NAME.json): no separators, no dot-dot.
_NAME = lazy.regex(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_NAME_RULE = ("expected a profile name of letters, digits, '.', '_' and '-' "
              "(at most 64, starting with a letter or digit)")
ProfileName = Annotated[str, Rule(lambda v: None if _NAME.fullmatch(v) else _NAME_RULE)]
NAME_MAX, PATH_MAX = 255, 4095  # Linux limits for one path component and a whole path


def _http_url(value: str) -> str | None:
    return None if value.startswith(("http://", "https://")) else "expected an http:// or https:// URL"


def _path_like(value: str) -> str | None:
    # a name no file system can hold is refused here, not as OSError ENAMETOOLONG later
    if "\0" in value:
        return "expected a path (it contains a NUL byte)"
    if len(value.encode("utf-8", "surrogateescape")) > PATH_MAX or any(
            len(part.encode("utf-8", "surrogateescape")) > NAME_MAX for part in value.split("/")):
        return (f"expected a path of at most {PATH_MAX} bytes with parts of at most {NAME_MAX} bytes "
                "(it names no file that can exist)")
    return None


Url = Annotated[str, _min_length(1), Rule(_http_url)]
PathLike = Annotated[str, _min_length(1), Rule(_path_like)]

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


@dataclasses.dataclass
class Profile:
    """How to launch (or reach) one inference server with its speculator."""

    name: ProfileName
    engine: Engine = "llama.cpp"
    binary: PathLike | None = None
    model: PathLike | None = None
    drafter: PathLike | None = None
    spec_type: NonEmpty = "none"  # comma chains allowed (``ngram-mod,draft-simple``)
    k: KDepth | None = None  # launch draft depth (llama.cpp --spec-draft-n-max, vLLM num_speculative_tokens)
    k_by_class: dict[RequestClass, KDepth] = dataclasses.field(default_factory=dict)
    adaptive_k: bool = True
    ctx: PosInt = 8192
    ngl: Annotated[int, Bounds(ge=-1)] | None = None
    parallel: PosInt = 1
    reasoning_budget: Annotated[int, Bounds(ge=-1)] | None = 0
    flash_attn: Literal["on", "off", "auto"] | None = None
    host: NonEmpty = "127.0.0.1"
    port: Port | None = None
    url: Url | None = None  # attached (unmanaged) server
    api_key: NonEmpty | None = None
    threads: PosInt | None = None
    extra_args: list[str] = dataclasses.field(default_factory=list)
    # vLLM / SGLang launch options
    max_model_len: PosInt | None = None
    gpu_memory_utilization: Annotated[float, Bounds(gt=0, le=1)] | None = None
    max_num_batched_tokens: PosInt | None = None
    tensor_parallel_size: PosInt | None = None
    enable_prefix_caching: bool = False

    def __post_init__(self) -> None:
        _validate(self)

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
        # dataclasses.replace runs __post_init__: each value is checked against the schema
        changes: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise CoderError(f"unknown profile field(s): {', '.join(sorted(unknown))}")
        try:
            return dataclasses.replace(self, **changes)
        except SchemaError as exc:
            raise CoderError(describe(exc, f"profile {self.name!r}")) from None


@dataclasses.dataclass
class FileSettings:
    """The top level of ``config.toml`` / ``.coder.toml`` (profiles are checked one by one)."""

    default_profile: NonEmpty | None = None
    theme: NonEmpty | None = None
    snapshot_dirty: bool | None = None
    warm_up: Literal["managed", "always", "off"] | None = None  # prompt-cache warm-up (attached servers: "always")
    test_command: NonEmpty | None = None  # run on each proposal before applying (trusted files only)
    lint_command: NonEmpty | None = None
    check_timeout: Annotated[float, Bounds(gt=0, le=3600)] | None = None  # seconds each of them may take
    profiles: dict[str, dict[str, object]] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        _validate(self)


def check_profile_name(name: str) -> str:
    """``name`` when it is a valid profile name (it becomes a file name under coder's state dir)."""
    if not _NAME.fullmatch(name):
        raise CoderError(f"{name!r} is not a profile name (letters, digits, '.', '_' and '-', at most 64)")
    return name


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


def describe(exc: SchemaError, where: str, prefix: str = "") -> str:
    """One line for the violation: ``where: key: got <kind>, expected ...`` (see :func:`shown_value`)."""
    key = shown_key(".".join([prefix, *exc.loc] if prefix else exc.loc) or "(top level)")
    if exc.key:  # the table key itself is wrong (k_by_class.foo), not its value
        return f"{where}: {key}: unknown key {shown_unknown_key(exc.value)}: {exc.expected}"
    return f"{where}: {key}: got {shown_value(exc.value)}, {exc.expected}"


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
    names = {f.name for f in dataclasses.fields(FileSettings)}
    known: dict[str, Any] = {k: v for k, v in data.items() if k in names}  # each value is checked, below
    try:
        settings = FileSettings(**known)
    except SchemaError as exc:
        raise CoderError(describe(exc, str(path))) from None
    if unknown := next((k for k in data if k not in names), None):  # reported after the known keys' values
        raise CoderError(f"{path}: {shown_key(unknown)}: got {shown_value(data[unknown])}, no such setting")
    return settings


def build_profile(name: str, raw: object, base: Profile | None, path: Path) -> Profile:
    """``base`` (or the defaults) with the keys of ``[profiles.NAME]`` applied, validated."""
    if not isinstance(raw, dict):
        raise CoderError(f"{path}: profiles.{shown_key(name)}: got {shown_value(raw)}, expected a table "
                         f"([profiles.{shown_key(name)}])")
    if not _NAME.fullmatch(name):
        raise CoderError(f"{path}: profiles.{shown_key(name)!r}: {_NAME_RULE}")
    start = base or Profile(name=name)
    settings = [f.name for f in dataclasses.fields(Profile) if f.name != "name"]
    if bad := [k for k in raw if k not in settings]:
        raise CoderError(f"{path}: profiles.{name}: unknown key(s): {shown_unknown_key(bad[0])}; "
                         f"expected one of {', '.join(settings)}")
    try:
        profile = dataclasses.replace(start, name=name, **raw)
    except SchemaError as exc:
        raise CoderError(describe(exc, str(path), f"profiles.{name}")) from None
    check_spec_type(profile, str(path))
    return profile


# --- the checks: a value against its annotation --------------------------------------------------

_KINDS: dict[type, str] = {bool: "a valid boolean", int: "a valid integer", float: "a valid number",
                           str: "a valid string", list: "a valid list", dict: "a valid dictionary"}


def _validate(obj: Profile | FileSettings) -> None:
    """Check every field of ``obj`` against its annotation, in field order; the first violation raises.

    Lists and tables are copied (a profile never shares one with the dict it was made from) and an
    integer where a number is expected becomes a float.
    """
    for name, hint in _hints(type(obj)):
        value = getattr(obj, name)
        checked = _check(hint, value, (name,))
        if checked is not value:
            setattr(obj, name, checked)


_HINTS: dict[type, tuple[tuple[str, Any], ...]] = {}


def _hints(cls: type) -> tuple[tuple[str, Any], ...]:
    """(field, annotation) of a schema class, resolved once (``__future__`` annotations are strings)."""
    if cls not in _HINTS:
        hints = get_type_hints(cls, include_extras=True)
        _HINTS[cls] = tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))
    return _HINTS[cls]


def _check(hint: Any, value: object, loc: tuple[str, ...]) -> object:
    """``value`` (a float for an integer, lists and tables copied) when it has type ``hint``; else SchemaError."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is Annotated:
        checked = _check(args[0], value, loc)
        for meta in args[1:]:
            if problem := _meta_problem(meta, checked):
                raise SchemaError(loc, problem, value)  # the value as written (an integer, not its float)
        return checked
    if origin in (Union, types.UnionType):  # X | None: only None is optional
        return None if value is None else _check(next(a for a in args if a is not type(None)), value, loc)
    if origin is Literal:
        if isinstance(value, str) and value in args:
            return value
        shown = [repr(a) for a in args]
        raise SchemaError(loc, f"expected {' or '.join(filter(None, [', '.join(shown[:-1]), shown[-1]]))}", value)
    if hint is object:
        return value
    return _check_kind(origin or hint, args, value, loc)


def _check_kind(kind: type, args: tuple[Any, ...], value: object, loc: tuple[str, ...]) -> object:
    """A plain type (strict: a boolean is no integer, an integer is a number; nothing else converts) or a container."""
    ok = type(value) is bool if kind is bool else (
        isinstance(value, (int, float) if kind is float else kind) and not isinstance(value, bool))
    if not ok:
        raise SchemaError(loc, f"expected {_KINDS[kind]}", value)
    if isinstance(value, int) and kind is float:
        try:
            return float(value)
        except OverflowError:  # an integer of hundreds of digits
            raise SchemaError(loc, "expected a valid number", value) from None
    if isinstance(value, list):
        return [_check(args[0], item, (*loc, str(i))) for i, item in enumerate(value)]
    if isinstance(value, dict):
        table: dict[object, object] = {}
        for key, item in value.items():
            try:
                key = _check(args[0], key, (*loc, str(key)))
            except SchemaError as exc:  # the key itself is wrong (k_by_class.foo)
                raise SchemaError(loc, exc.expected, key, key=True) from None
            table[key] = _check(args[1], item, (*loc, str(key)))
        return table
    return value


def _meta_problem(meta: object, value: Any) -> str | None:
    """What an ``Annotated`` rule says about ``value``; bounds in pydantic's order (le before ge)."""
    if isinstance(meta, Rule):
        return meta.check(value)
    if isinstance(meta, Bounds):
        checks: tuple[tuple[float | None, Callable[[float], bool], str], ...] = (
            (meta.le, lambda b: bool(value <= b), "less than or equal to"),
            (meta.ge, lambda b: bool(value >= b), "greater than or equal to"),
            (meta.gt, lambda b: bool(value > b), "greater than"))
        for bound, holds, words in checks:
            if bound is not None and not holds(bound):  # NaN holds no bound
                return f"expected {words} {bound}"
    return None
