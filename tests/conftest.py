"""Shared fixtures: an isolated CODER_HOME, real git repos, and real llama-server instances."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cli_helpers import make_repo

_HOME: Path | None = None
# server tests that did not run; under CI=true any of them fails the suite (a green CI must have run them)
_SERVER_NOT_RUN: list[str] = []
_SERVER_RAN: list[str] = []


def _ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_deselected(items: list[pytest.Item]) -> None:
    _SERVER_NOT_RUN.extend(f"{item.nodeid} (deselected)" for item in items if item.get_closest_marker("server"))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "server" not in report.keywords:
        return
    if report.skipped:
        _SERVER_NOT_RUN.append(f"{report.nodeid} (skipped)")
    elif report.when == "call":
        _SERVER_RAN.append(report.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _ci() and (_SERVER_NOT_RUN or not _SERVER_RAN):
        terminalreporter.section("CI: server tests must run")
        for line in _SERVER_NOT_RUN[:20]:
            terminalreporter.write_line(line)
        if not _SERVER_RAN:
            terminalreporter.write_line("no server test ran")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under CI=true a skipped, deselected or absent server test fails the run."""
    if _ci() and (_SERVER_NOT_RUN or not _SERVER_RAN) and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_configure(config: pytest.Config) -> None:
    """One CODER_HOME per test session, so coder never touches the user's config or servers.

    Built llama-server binaries and models (artifacts) stay shared: they are expensive.
    """
    global _HOME
    import tempfile

    _HOME = Path(tempfile.mkdtemp(prefix="coder-test-home-"))
    os.environ["CODER_HOME"] = str(_HOME)


@pytest.fixture(scope="session")
def coder_home() -> Path:
    assert _HOME is not None
    return _HOME


@pytest.fixture(scope="session")
def llama_server_binary() -> Path:
    """coder's own llama-server build (built on first use, then reused from the artifacts dir)."""
    from coder.backends.toolchain.install import install

    return Path(install(cuda=False).binary)


@pytest.fixture(scope="session")
def demo_model() -> Path:
    from coder.models.demo import fetch_demo

    return fetch_demo()


_names = itertools.count()


def _start(binary: Path, **overrides: object):  # type: ignore[no-untyped-def]
    from coder.backends.runtime import manager
    from coder.config import builtin_profiles

    name = str(overrides.pop("name", f"test-{os.getpid()}-{next(_names)}"))
    profile = builtin_profiles()["demo"].with_overrides(name=name, binary=str(binary), ctx=4096, threads=2)
    profile = profile.with_overrides(**overrides)
    info = manager.start(profile)
    if profile.spec_type not in (None, "none"):
        # a server test that ran on a silently speculation-free server would measure nothing
        assert info.verified is True, f"{name}: {info.verdict}"
    return info


@pytest.fixture(scope="session")
def demo_server(llama_server_binary: Path, demo_model: Path) -> Iterator[object]:
    """A running, verified demo server: SmolLM2-135M, n-gram speculation (ngram-mod), k=8."""
    from coder.backends.runtime import manager

    info = _start(llama_server_binary, name="demo")
    try:
        yield info
    finally:
        manager.stop("demo")


@pytest.fixture
def server_factory(llama_server_binary: Path, demo_model: Path) -> Iterator[Callable[..., object]]:
    """Start servers from the demo profile with overrides (e.g. spec_type, k, drafter, extra_args).

    ``drafter="demo"`` uses the demo model as its own drafter. Every server is stopped afterwards.
    """
    from coder.backends.runtime import manager

    started: list[str] = []

    def factory(**overrides: object) -> object:
        info = _start(llama_server_binary, **overrides)
        started.append(str(info.profile))
        return info

    yield factory
    for name in started:
        manager.stop(name)


@pytest.fixture
def tmp_repo(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A real git repository with committed files: ``hello.py``, or those a ``repo_files`` mark names.

    ``@pytest.mark.repo_files({"app.py": SOURCE})`` on a test (or as a module's ``pytestmark``) commits
    exactly those files, for tests whose prompt or diff depends on what the repository holds.
    """
    mark = request.node.get_closest_marker("repo_files")
    root = tmp_path / "repo"
    make_repo(root, mark.args[0] if mark else None)
    return root
