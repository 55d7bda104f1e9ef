"""Run a bench set's test module (``tests/unit/test_bench_fresh4.py``, ...) under a Python that has no pytest.

The edit bench's checks import each result in a fresh interpreter (``sys.executable``), and the upstream tests run
under it too, so a set must be checked on every Python the bench runs on (3.11 here; 3.12 on the H200; 3.13).
pyenv's 3.12 and 3.13 have nothing installed: this gives the test module a small stand-in for the part of pytest it
uses (``mark.parametrize``, ``skip``, the ``tmp_path`` fixture) and runs every test but those that take ``capsys``
(they drive coder's CLI, whose packages are not there). Install nothing; run from the repository root:

    PYTHONPATH=. /root/.pyenv/versions/3.13.0/bin/python3 scripts/dev/fresh_sets_on.py tests/unit/test_bench_fresh4.py

``tests/`` goes on ``sys.path`` as pytest's ``pythonpath`` puts it, for the helpers the modules import
(``tests/bench_sets.py``).
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import tempfile
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any


class Skipped(Exception):
    """pytest.skip() in the stand-in."""


def _parametrize(name: str, values: Any, ids: Any = None) -> Callable[[Any], Any]:
    def mark(fn: Any) -> Any:
        fn.stand_in_params = (name, list(values))
        return fn
    return mark


def _skip(reason: str = "") -> None:
    raise Skipped(reason)


def stand_in() -> types.ModuleType:
    """A module that answers the pytest names a bench-set test module uses."""
    mod = types.ModuleType("pytest")
    mod.mark = types.SimpleNamespace(parametrize=_parametrize)  # type: ignore[attr-defined]
    mod.skip = _skip  # type: ignore[attr-defined]
    mod.CaptureFixture = object  # type: ignore[attr-defined]  # only named in (unevaluated) annotations
    return mod


def run(path: Path) -> tuple[int, int, int]:
    """Every test of the module at ``path``: (passed, failed, left out)."""
    sys.modules.setdefault("pytest", stand_in())
    tests = str(Path(__file__).resolve().parents[2] / "tests")  # pytest's pythonpath: bench_sets and the like
    if tests not in sys.path:
        sys.path.insert(0, tests)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    passed = failed = left = 0
    for name, fn in vars(module).items():
        if not (name.startswith("test_") and inspect.isfunction(fn)):
            continue
        wants = inspect.signature(fn).parameters
        if "capsys" in wants:
            left += 1
            continue
        param, values = getattr(fn, "stand_in_params", (None, [None]))
        for value in values:
            kwargs: dict[str, Any] = {param: value} if param else {}
            if "tmp_path" in wants:
                kwargs["tmp_path"] = Path(tempfile.mkdtemp(prefix="stand-in-"))
            label = f"{name}[{getattr(value, 'name', value)}]" if param else name
            try:
                fn(**kwargs)
                passed += 1
            except Skipped as why:
                left += 1
                print(f"skipped {label}: {why}")
            except Exception:  # noqa: BLE001  # a failing assertion or an error: both are failures
                failed += 1
                print(f"FAILED {label}\n{traceback.format_exc()}")
    return passed, failed, left


def main(argv: list[str]) -> int:
    """Run each named test module; 1 when any test failed."""
    bad = 0
    for arg in argv:
        passed, failed, left = run(Path(arg))
        print(f"{arg} on Python {sys.version.split()[0]}: {passed} passed, {failed} failed, {left} left out")
        bad += failed
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
