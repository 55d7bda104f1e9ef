"""Sizes judged before reading (any mode), diffs that show what changed, and capped diff display."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.edit.apply.files import MAX_FILE_BYTES, diff_stat, display_diff, read_snapshot, unified_diff
from coder.edit.run.budget import plan_budget
from coder.edit.run.engine import EditEngine
from coder.errors import CoderError


def test_a_sparse_64_gb_file_is_refused_from_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    with big.open("wb") as fh:
        fh.truncate(64 * 2**30)  # sparse: nothing on disk, everything in memory if read
    with pytest.raises(CoderError, match=r"big\.py: 68,719\.5 MB is larger than coder edits") as err:
        read_snapshot(tmp_path, big)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("argv", [{"lines": "1-3"}, {"symbol": None}])
def test_a_50_mb_file_is_refused_for_a_region_edit_too(tmp_path: Path, argv: dict[str, str | None]) -> None:
    root = tmp_path / "r"
    make_repo(root)
    (root / "huge.py").write_bytes(b"x = 1\n" * (50_000_000 // 6))
    engine = EditEngine(None, root, use_git=False)
    with pytest.raises(CoderError, match="MB is larger than coder edits"):
        engine.check_target(root / "huge.py", **argv)  # type: ignore[arg-type]
    assert MAX_FILE_BYTES < 50_000_000


def test_one_changed_line_among_300_identical_lines_is_one_line() -> None:
    old = "x = 1\n" * 300
    new = "x = 1\n" * 150 + "x = 2\n" + "x = 1\n" * 149
    assert diff_stat(unified_diff("f.py", old, new)) == (1, 1)
    # two changes far apart: the middle between them is all repeated lines (autojunk's worst case)
    new2 = "x = 1\n" * 10 + "y = 0\n" + "x = 1\n" * 279 + "z = 0\n" + "x = 1\n" * 9
    assert diff_stat(unified_diff("f.py", old, new2)) == (2, 2)


def test_a_three_line_region_edit_of_a_large_file_is_three_lines() -> None:
    lines = [f"v{i % 7} = {i % 3}\n" for i in range(120_000)]
    new = [*lines[:60_000], "a\n", "b\n", "c\n", *lines[60_003:]]
    assert diff_stat(unified_diff("f.py", "".join(lines), "".join(new))) == (3, 3)


def test_unified_diff_format_round_trips_through_patch(tmp_path: Path) -> None:
    import subprocess

    old = "a\nb\nc\nd\ne\nf\ng\nh\n" * 3
    new = old.replace("c\n", "C\n", 2).replace("h\n", "h", 1)[:-2] + "z"  # no newline at the end
    diff = unified_diff("f.txt", old, new)
    (tmp_path / "f.txt").write_text(old)
    (tmp_path / "p.diff").write_text(diff)
    subprocess.run(["patch", "-s", "-p1", "-d", str(tmp_path), "-i", str(tmp_path / "p.diff")], check=True)
    assert (tmp_path / "f.txt").read_text() == new


def test_display_is_capped_with_a_count() -> None:
    old = "".join(f"{i}\n" for i in range(10_000))
    diff = unified_diff("f", old, old.replace("\n", " changed\n"))
    shown = display_diff(diff, max_lines=100)
    assert len(shown.splitlines()) == 101
    assert shown.splitlines()[-1].startswith(f"... {len(diff.splitlines()) - 100} more diff lines not shown (+")


def test_a_long_instruction_is_named_as_what_does_not_fit() -> None:
    with pytest.raises(CoderError, match=r"the instruction .* is too long for the server context"):
        plan_budget(30_000, 200, 8192, mode="full", rel="a.py", instruction_tokens=25_000)
    with pytest.raises(CoderError, match="Edit a region instead"):
        plan_budget(30_000, 20_000, 8192, mode="full", rel="a.py", instruction_tokens=100)


def test_the_instruction_is_counted_only_when_the_budget_does_not_fit() -> None:
    counted: list[int] = []

    def count() -> int:  # counting may load the offline tokenizer: it must not run for a request that fits
        counted.append(1)
        return 25_000

    plan_budget(1_000, 900, 4096, mode="full", rel="a.py", instruction_tokens=count)
    assert counted == []
    with pytest.raises(CoderError, match=r"the instruction \(~25000 tokens\) is too long"):
        plan_budget(30_000, 200, 8192, mode="full", rel="a.py", instruction_tokens=count)
    assert counted == [1]


def test_the_file_untouched_after_refusal(tmp_path: Path) -> None:
    f = tmp_path / "big.py"
    f.write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    before = os.stat(f)
    with pytest.raises(CoderError):
        read_snapshot(tmp_path, f)
    assert os.stat(f).st_mtime_ns == before.st_mtime_ns


def test_a_docstring_request_has_room_for_one_line_per_parameter(tmp_path: Path) -> None:
    # copy-docstring w1 on the H200: "document _reconstruct with a docstring" (46 lines, 8 parameters) was cut at
    # 450 tokens, 128 over the region, one line before its closing fence; a docstring grows per def and parameter
    from coder.bench.edits.tasks_heldout import HELDOUT
    from coder.edit.run.budget import DOC_PER_DEF, DOC_PER_PARAM, GROWTH_MIN

    task = next(t for t in HELDOUT if t.name == "copy-docstring")
    make_repo(tmp_path / "r", task.originals())
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    asked = engine.prepare(tmp_path / "r" / task.file, task.wordings[1], mode="region", symbol="_reconstruct")
    growth = asked.budget.max_tokens - asked.budget.reply_tokens
    assert growth == DOC_PER_DEF + 8 * DOC_PER_PARAM > GROWTH_MIN + 48  # 208: the recorded docstring needed ~148
    other = engine.prepare(tmp_path / "r" / task.file, "in _reconstruct, rename y to result", mode="region",
                           symbol="_reconstruct")
    assert other.budget.max_tokens - other.budget.reply_tokens == GROWTH_MIN  # no docstring asked: as before
