"""Property tests: random config documents, bench prompt files and edit paths.

The only exception that may escape is coder's own one-line CoderError.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import git
import pytest
import tomlkit
from cli_helpers import make_repo
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from coder import config
from coder.bench.workloads import load_prompts
from coder.config_schema import NAMED_MODEL_KEYS, TRUSTED_ONLY
from coder.edit.run.engine import EditEngine
from coder.edit.source.target import VCS_METADATA
from coder.errors import CoderError

FIELDS = ["engine", "binary", "model", "drafter", "spec_type", "k", "k_by_class", "adaptive_k", "ctx", "ngl",
          "parallel", "reasoning_budget", "flash_attn", "host", "port", "url", "api_key", "threads", "extra_args",
          "max_model_len", "gpu_memory_utilization", "enable_prefix_caching", "name", "bogus"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _one_line(exc: CoderError) -> None:
    assert str(exc) and "\n" not in str(exc), repr(str(exc))


@contextmanager
def _home() -> Iterator[Path]:
    old = os.environ.get("CODER_HOME")
    with tempfile.TemporaryDirectory() as d:
        os.environ["CODER_HOME"] = d
        try:
            yield Path(d)
        finally:
            if old is None:
                os.environ.pop("CODER_HOME", None)
            else:
                os.environ["CODER_HOME"] = old


scalars = st.one_of(st.integers(min_value=-(2**63), max_value=2**63 - 1), st.floats(allow_nan=False),
                    st.booleans(), st.text(max_size=20),
                    st.sampled_from(["llama.cpp", "vllm", "ngram-mod", "draft-simple,ngram-mod", "on", "demo",
                                     "127.0.0.1", "0.0.0.0", "http://x:1", "full"]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(["full", "region", "fresh", "x"]), inner, max_size=3),
                      max_leaves=8)
profile_tables = st.dictionaries(st.sampled_from(FIELDS), values, max_size=6)
documents = st.fixed_dictionaries({}, optional={
    "default_profile": st.one_of(st.sampled_from(["demo", "p", "demo-self"]), values),
    "theme": values, "snapshot_dirty": values,
    "profiles": st.one_of(values, st.dictionaries(st.sampled_from(["demo", "p", "../x", "a b", "q"]),
                                                  st.one_of(profile_tables, values), max_size=3)),
    "junk": values,
})


@SETTINGS
@given(user=documents, repo=documents)
def test_random_toml_config(user: dict[str, Any], repo: dict[str, Any]) -> None:
    try:
        user_text, repo_text = tomlkit.dumps(user), tomlkit.dumps(repo)
    except Exception:  # noqa: BLE001 - a value TOML cannot hold; not coder's input to judge
        assume(False)
        return
    with _home() as home:
        root = home / "repo"
        root.mkdir()
        (root / ".coder.toml").write_text(repo_text)
        config.user_config_path().parent.mkdir(parents=True)
        config.user_config_path().write_text(user_text)
        try:
            cfg = config.load(root)
        except CoderError as exc:
            _one_line(exc)
            return
    for profile in cfg.profiles.values():
        assert profile.k is None or (type(profile.k) is int and profile.k >= 0)
        assert type(profile.ctx) is int and profile.ctx > 0
        assert profile.port is None or 1 <= profile.port <= 65535
        assert isinstance(profile.extra_args, list) and type(profile.adaptive_k) is bool
    assert type(cfg.snapshot_dirty) is bool
    repo_profiles = repo.get("profiles") if isinstance(repo.get("profiles"), dict) else {}
    for name, body in repo_profiles.items():  # untrusted: never set a trust-only field
        if isinstance(body, dict) and name in cfg.profiles:
            for key in TRUSTED_ONLY:
                if key in NAMED_MODEL_KEYS and body.get(key) in _named_models(user):
                    continue  # a model the user already has may be chosen by name
                if key in body and not (isinstance(user.get("profiles"), dict) and
                                        key in (user["profiles"].get(name) or {})):
                    default = getattr(config.builtin_profiles().get(name, config.Profile(name="d")), key)
                    assert getattr(cfg.profiles[name], key) == default


def _named_models(user: dict[str, Any]) -> set[object]:
    tables = user.get("profiles") if isinstance(user.get("profiles"), dict) else {}
    return {"demo"} | {body.get(k) for body in tables.values() if isinstance(body, dict) for k in NAMED_MODEL_KEYS}


@SETTINGS
@given(data=st.binary(max_size=200))
def test_random_bytes_as_config(data: bytes) -> None:
    with _home():
        config.user_config_path().parent.mkdir(parents=True)
        config.user_config_path().write_bytes(data)
        try:
            config.load(None)
        except CoderError as exc:
            _one_line(exc)


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=10)
records = st.fixed_dictionaries({}, optional={
    "name": st.one_of(st.text(max_size=8), json_values), "prompt": st.one_of(st.text(max_size=20), json_values),
    "messages": st.one_of(st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "system", "bot"]),
                                                          "content": st.one_of(st.text(max_size=10), json_values)}),
                                   max_size=2), json_values),
    "class": st.one_of(st.sampled_from(["full", "region", "fresh"]), json_values),
    "file": st.one_of(st.sampled_from(["src.py", "../src.py", "/etc/passwd", "sub/../src.py", "nope.py", "",
                                       "link.py", "dir"]), json_values),
    "lines": st.one_of(st.lists(st.integers(-2, 5), max_size=3), json_values),
    "extra": json_values,
})
lines = st.one_of(records.map(json.dumps), st.text(max_size=30), st.just("[" * 200 + "]" * 200),
                  json_values.map(json.dumps))


@SETTINGS
@given(body=st.lists(lines, max_size=5), raw=st.binary(max_size=40), use_raw=st.booleans(),
       suffix=st.sampled_from([".jsonl", ".txt", ".md"]))
def test_random_prompt_files(body: list[str], raw: bytes, use_raw: bool, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        base = Path(d) / "prompts"
        base.mkdir()
        (base / "src.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
        (base / "dir").mkdir()
        (Path(d) / "src.py").write_text("outside = True\n")
        (base / "link.py").symlink_to(Path(d) / "src.py")
        path = base / f"p{suffix}"
        path.write_bytes(raw if use_raw else "\n".join(body).encode())
        cwd = os.getcwd()
        os.chdir(d)  # no repository around
        try:
            workloads = load_prompts(path)
        except CoderError as exc:
            _one_line(exc)
            return
        finally:
            os.chdir(cwd)
    for w in workloads:
        assert w.cls in ("full", "region", "fresh") and w.messages
        assert all("outside = True" not in m["content"] for m in w.messages)  # nothing read from outside


_REPO: dict[str, Any] = {}


def _edit_repo(tmp_root: Path) -> tuple[Path, EditEngine]:
    if not _REPO:
        root = tmp_root / "repo"
        make_repo(root, {"hello.py": "x = 1\n", "sub/mod.py": "y = 2\n", ".gitignore": "build/\n"})
        (root / "build").mkdir()
        (root / "build" / "gen.py").write_text("z = 3\n")
        (root / "link").symlink_to(root / ".git")
        (root / "up").symlink_to(tmp_root)
        (tmp_root / "outside.py").write_text("o = 1\n")
        make_repo(root / "nested", {"n.py": "n = 1\n"})
        _REPO.update(root=root, engine=EditEngine(None, root))
    return _REPO["root"], _REPO["engine"]


segments = st.sampled_from([".git", ".hg", ".svn", "..", ".", "hooks", "config", "HEAD", "hello.py", "sub", "mod.py",
                            "build", "gen.py", "link", "up", "outside.py", "nested", "n.py", "", "x" * 300, "a\0b",
                            "~", "*", "héllo.py", " "])


@SETTINGS
@given(parts=st.lists(segments, min_size=1, max_size=5), absolute=st.booleans())
def test_random_edit_paths(tmp_path_factory: pytest.TempPathFactory, parts: list[str], absolute: bool) -> None:
    root, engine = _edit_repo(tmp_path_factory.getbasetemp() / "edit-props")
    raw = "/".join(parts)
    path = Path(str(root) + "/" + raw) if absolute else Path(raw)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        snap, _ = engine.check_target(path)
    except CoderError as exc:
        _one_line(exc)
        return
    finally:
        os.chdir(cwd)
    real = snap.path
    assert real.is_relative_to(root.resolve()) and real.is_file()
    rel = real.relative_to(root.resolve())
    assert not set(rel.parts) & VCS_METADATA and rel.parts[0] not in ("build", "nested")
    assert git.Repo(root).git.check_ignore("--no-index", "-q", rel.as_posix(), with_exceptions=False) == ""


