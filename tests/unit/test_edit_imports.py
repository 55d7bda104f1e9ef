"""What ``coder edit`` imports before its request (issue 35: every second outside the request).

The command runs in a fresh interpreter, as a user's would, up to its server probe (a closed port),
then loads the llama.cpp adapter a managed profile's probe loads. Packages that other commands
need (the TUI, the doctor's OpenAI client, the bench's plots, pydantic, the launch-time checkpoint
and log parsers) must not be among its modules. Nor must GitPython: the steps before the request
ask ``git`` itself (:mod:`coder.edit.apply.gitcli`), and GitPython loads only where an edit is
committed. A set of modules is asserted, never a time.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import coder

# top-level packages the edit path has no use for: each one was, or could easily become, an import on it
HEAVY_PACKAGES = {"pydantic", "pydantic_core", "textual", "rich", "pygments", "openai", "tiktoken", "matplotlib",
                  "prometheus_client", "tomlkit", "git", "gitdb", "smmap",
                  # coder's own HTTP client is the standard library's http.client: no third-party stack
                  "httpx", "httpcore", "h11", "anyio", "sniffio", "certifi", "idna"}
# coder's own modules that only launching, installing, inspecting models or the bench need
HEAVY_CODER = ("coder.backends.engines.preflight", "coder.backends.engines.logscan", "coder.backends.installed",
               "coder.backends.cpu_features", "coder.models", "coder.bench", "coder.ui", "coder.doctor",
               # committing and undoing (GitPython), and the user's checks: after the request, when at all
               "coder.edit.apply.gitops", "coder.edit.apply.commit", "coder.repo")
# a fix not mended, sought where the failing oracles point or among one-token changes: after a failed request only,
# never for a plan's step (coder.edit.run.engine.EditEngine.run imports them there)
FIX_ONLY = ("coder.edit.run.locate", "coder.edit.run.repair", "coder.edit.source.mutants", "coder.edit.source.callees")
# what only a rename plan needs (coder.edit.run.plan_step.mechanized): every other plan's steps go without it
RENAME_ONLY = ("coder.edit.plan.rename_scope",)
# what only a config file that exists (its TOML, its trust) or a launch (its API key) needs: the edit of a
# repository without a .coder.toml, on the built-in defaults, reads no TOML and asks nothing of trust
CONFIG_FILE_ONLY = ("tomllib", "coder.trust", "secrets")

_SCRIPT = """
import json, sys
from coder.cli.main import main
code = main(sys.argv[1:])
from coder.backends.engines.registry import adapter_for
adapter_for("llama.cpp")  # what the probe of a managed llama.cpp profile loads
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _edit_modules(repo: Path, *extra: str) -> set[str]:
    argv = ["edit", "hello.py", "-m", "add a docstring", "--attach", f"http://127.0.0.1:{_closed_port()}",
            "--dry-run", "--json", *extra]
    root = str(Path(coder.__file__).resolve().parents[1])  # this checkout's coder, not an installed one
    # a CODER_HOME of its own: the session's (conftest) holds the config.toml that earlier server tests wrote,
    # and a config file that exists is read (tomllib): the edit of a fresh user's repository is what is pinned
    home = repo.parent / f"{repo.name}-coder-home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "CODER_HOME": str(home),
           "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", _SCRIPT, *argv], cwd=repo, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["code"] == 1  # it got as far as the probe: the server is down
    return set(result["modules"])


@pytest.mark.parametrize("extra", [(), ("--symbol", "greet")])
def test_edit_path_imports_no_heavy_package(tmp_repo: Path, extra: tuple[str, ...]) -> None:
    modules = _edit_modules(tmp_repo, *extra)
    # it really ran the edit path: the engine, its HTTP client, plain git, the checks and the llama.cpp adapter
    assert {"coder.edit.run.engine", "coder.backends.runtime.http", "http.client", "coder.edit.apply.gitcli",
            "pyflakes.checker", "coder.config", "coder.backends.engines.llamacpp"} <= modules
    assert sorted(m for m in modules if m.split(".")[0] in HEAVY_PACKAGES) == []
    assert sorted(m for m in modules if m.startswith(HEAVY_CODER)) == []
    assert sorted(m for m in modules if m.startswith(FIX_ONLY)) == []
    assert sorted(m for m in modules if m.split(".")[0] in CONFIG_FILE_ONLY or m in CONFIG_FILE_ONLY) == []


def test_a_repository_config_file_is_still_read(tmp_repo: Path) -> None:
    """The deferred TOML reader loads when there is a file to read (the assertion above is not vacuous)."""
    (tmp_repo / ".coder.toml").write_text('theme = "dark"\n')
    modules = _edit_modules(tmp_repo)
    assert {"tomllib", "coder.trust"} <= modules


@pytest.mark.parametrize(("extra", "planner"), [((), True), (("--symbol", "greet"), False),
                                                (("--lines", "1-2"), False)])
def test_only_an_edit_that_may_be_a_plan_loads_the_planner(tmp_repo: Path, extra: tuple[str, ...],
                                                            planner: bool) -> None:
    modules = _edit_modules(tmp_repo, *extra)
    assert {"coder.edit.run.plan_run", "coder.edit.run.plan_result", "coder.edit.plan.derive"} & modules == (
        {"coder.edit.run.plan_run", "coder.edit.run.plan_result", "coder.edit.plan.derive"} if planner else set())


_PLAN_SCRIPT = """
import json, sys
from pathlib import Path
from coder.edit.run import plan_run
from coder.edit.run.engine import EditEngine
from coder.edit.run.prompt import predicted_reply
from coder.testing.replies import ScriptedModel
engine = EditEngine(None, Path.cwd())
prepared = plan_run.prepare(engine, Path(sys.argv[1]), sys.argv[2], mode="auto")
plan_run.run_plan(engine, prepared, ScriptedModel(engine, lambda r: predicted_reply(r.prompt)))  # copied back
print(json.dumps({"kind": prepared.plan.kind, "modules": sorted(sys.modules)}))
"""


@pytest.mark.repo_files({"textwrap.py": (Path(__file__).parents[1] / "data" / "plans" / "textwrap.py.txt").read_text()})
@pytest.mark.parametrize(("instruction", "kind"), [
    ("Add a parameter verbose: bool = False to _munge_whitespace and update its callers to pass it on.", "add_param"),
    ("Rename _munge_whitespace to _normalize_whitespace everywhere", "rename")])
def test_a_plan_loads_the_rename_scope_only_for_a_rename_and_never_the_fix_search(tmp_repo: Path, instruction: str,
                                                                                  kind: str) -> None:
    """A plan prepared and run to its end in a fresh interpreter (the model's replies copy each region back)."""
    root = str(Path(coder.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", _PLAN_SCRIPT, "textwrap.py", instruction], cwd=tmp_repo, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    modules = set(result["modules"])
    assert result["kind"] == kind and "coder.edit.run.plan_step" in modules  # it ran the plan's steps
    assert sorted(m for m in modules if m.startswith(FIX_ONLY)) == []  # a plan's step is never a fix sought further
    assert sorted(m for m in modules if m.startswith(RENAME_ONLY)) == ([] if kind != "rename" else list(RENAME_ONLY))


def test_the_heavy_lists_name_real_modules() -> None:
    """A misspelt name would make the assertions above pass vacuously."""
    import importlib.util

    # coder declares none of these, so they may be absent (openai 3.60 brings httpx2 and httpcore2, not httpx)
    undeclared = {"pydantic", "pydantic_core", "httpx", "httpcore", "h11", "anyio", "sniffio", "certifi", "idna"}
    for name in sorted(HEAVY_PACKAGES - undeclared):
        assert importlib.util.find_spec(name) is not None, name
    for name in (*HEAVY_CODER, *FIX_ONLY, *RENAME_ONLY):
        assert importlib.util.find_spec(name) is not None, name
