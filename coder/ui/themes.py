"""Theme files (TOML) -> Textual ``Theme`` objects.

Built-in themes ship as files: in a wheel they sit in the installed package's
``coder/themes`` (pyproject force-includes the top-level ``themes/``); in an editable
install they are found in the repository's top-level ``themes/``. Users drop their own
files in ``config_dir()/themes``. A broken file is reported, never fatal.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

import coder
from coder.paths import config_dir
from coder.textsafe import one_line

DEFAULT_THEME = "coder-dark"

# coder's own $variables; defaults here so Textual's built-in themes work too
VARIABLE_DEFAULTS: dict[str, str] = {
    "diff-added": "#1f3b27",
    "diff-removed": "#4a1f24",
    "diff-hunk": "#4aa3df",
    "spec-good": "#5fb96b",
    "spec-poor": "#e0525e",
    "user-text": "#8fbcbb",
}

_COLOR_KEYS = ("primary", "secondary", "warning", "error", "success", "accent",
               "foreground", "background", "surface", "panel", "boost")
_OTHER_KEYS = {"name": str, "dark": bool, "luminosity_spread": float, "text_alpha": float}


class ThemeFileError(Exception):
    """A theme file that cannot be used; the message names the file and the problem."""


@dataclass
class ThemeLoadResult:
    """The themes that loaded, and one line per file that did not."""

    themes: list[Theme] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def builtin_theme_dirs() -> list[Path]:
    """Installed package first, then the source checkout (editable installs)."""
    package = Path(coder.__file__).resolve().parent
    return [package / "themes", package.parent / "themes"]


def user_theme_dir() -> Path:
    """Where the user's own theme files live."""
    return config_dir() / "themes"


def _color(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str):
        raise ThemeFileError(f"{path.name}: {key} must be a colour string")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeFileError(f"{path.name}: {key} = {value!r} is not a colour") from None
    return value


def _plain_values(path: Path, raw: dict[str, object]) -> dict[str, object]:
    """The non-colour keys, type-checked (an int is fine where a float is wanted)."""
    out: dict[str, object] = {}
    for key, kind in _OTHER_KEYS.items():
        if key in raw:
            value = raw[key]
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, kind):
                raise ThemeFileError(f"{path.name}: {key} must be {kind.__name__}")
            out[key] = value
    return out


def load_theme_file(path: Path) -> Theme:
    """Parse one TOML theme file; raises ThemeFileError with a one-line reason."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ThemeFileError(f"{path.name}: not valid TOML ({exc})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeFileError(f"{path.name}: cannot read ({exc})") from None
    allowed = set(_COLOR_KEYS) | set(_OTHER_KEYS) | {"variables", "ansi"}
    unknown = set(raw) - allowed
    if unknown:
        raise ThemeFileError(f"{path.name}: unknown key(s) {one_line(', '.join(sorted(unknown)))}")
    if not isinstance(raw.get("name"), str) or not raw["name"].strip():
        raise ThemeFileError(f"{path.name}: needs a name")
    if "primary" not in raw:
        raise ThemeFileError(f"{path.name}: needs a primary colour")
    kwargs = _plain_values(path, raw)
    for key in _COLOR_KEYS:
        if key in raw:
            kwargs[key] = _color(path, key, raw[key])
    variables = raw.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeFileError(f"{path.name}: [variables] must be a table")
    kwargs["variables"] = {str(k): _color(path, f"variables.{k}", v) for k, v in variables.items()}
    theme_fields = {f.name for f in fields(Theme)}
    return Theme(**{k: v for k, v in kwargs.items() if k in theme_fields})  # type: ignore[arg-type]


def load_dir(folder: Path, result: ThemeLoadResult | None = None) -> ThemeLoadResult:
    """Load every ``*.toml`` in ``folder`` (sorted), collecting errors instead of raising."""
    result = result or ThemeLoadResult()
    if not folder.is_dir():
        return result
    for path in sorted(folder.glob("*.toml")):
        try:
            result.themes.append(load_theme_file(path))
        except ThemeFileError as exc:
            result.errors.append(str(exc))
    return result


def load_builtin() -> ThemeLoadResult:
    """Built-in themes from the first theme folder that exists."""
    for folder in builtin_theme_dirs():
        if folder.is_dir() and any(folder.glob("*.toml")):
            return load_dir(folder)
    return ThemeLoadResult(errors=["coder's built-in theme files are missing (reinstall coder)"])


def load_all(user_dir: Path | None = None) -> ThemeLoadResult:
    """Built-ins, then the user's themes (a user theme may replace a built-in of the same name)."""
    result = load_builtin()
    return load_dir(user_dir or user_theme_dir(), result)
