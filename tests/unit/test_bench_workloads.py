"""Workloads: the built-in suite and user prompt files (real files on disk), with their errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.bench import workloads
from coder.edit.run.prompt import SYSTEM_PROMPT
from coder.errors import CoderError

DATA = Path(__file__).parents[1] / "data" / "bench"


def test_builtin_suite_mirrors_the_seeds_plus_edit_classes() -> None:
    suite = workloads.builtin_suite()
    names = [w.name for w in suite]
    assert names[:4] == ["code", "prose", "arithmetic", "refactor"]
    assert {w.cls for w in suite[:4]} == {"fresh"}
    edits = {w.cls: w for w in suite[4:]}
    assert set(edits) == {"full", "region"}
    full, region = edits["full"], edits["region"]
    # Edit workloads use the edit engine's prompt shape on a real shipped source file.
    assert full.messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    source = Path(workloads.__file__).resolve().parent.parent.parent / str(full.file)
    assert source.is_file()
    assert source.read_text() in full.messages[1]["content"]
    large = source.parent / Path(str(region.file)).name
    body = region.messages[1]["content"]
    # a region of a real file: a labelled excerpt, not the whole file
    assert large.is_file() and large != source
    assert "lines " in body and large.read_text() not in body and len(body) < len(large.read_text())
    file_lines = set(large.read_text().splitlines())
    assert sum(1 for line in body.splitlines() if len(line) > 20 and line in file_lines) >= 5


def test_prompt_directory(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Write a haiku about caches.\n")
    (tmp_path / "b.md").write_text("class: full\nRewrite this file.\n")
    (tmp_path / "ignored.py").write_text("print(1)\n")
    loaded = workloads.load_prompts(tmp_path)
    assert [(w.name, w.cls) for w in loaded] == [("a", "fresh"), ("b", "full")]
    assert loaded[1].messages == [{"role": "user", "content": "Rewrite this file."}]


def test_jsonl_file_with_edit_records() -> None:
    loaded = workloads.load_prompts(DATA / "prompts.jsonl")
    by_name = {w.name: w for w in loaded}
    assert by_name["hello"].messages == [{"role": "user", "content": "Say hello."}]
    assert by_name["chat"].messages[0]["role"] == "system"
    full = by_name["rewrite"]
    assert full.cls == "full" and full.file == "sample.py"
    assert (DATA / "sample.py").read_text() in full.messages[1]["content"]
    region = by_name["region"]
    assert "lines 4-6" in region.messages[1]["content"]
    assert "def area" in region.messages[1]["content"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"name": "a", "prompt": "x"}\n{"name": "b", "prompt": \n', ":2: not valid JSON"),
        ('{"name": "a", "prompt": "x", "class": "huge"}\n', ':1: "class" must be one of'),
        ('{"name": "a"}\n', ':1: give exactly one of "messages" or "prompt"'),
        ('\n\n{"name": "a", "messages": [{"role": "bot", "content": "x"}]}\n', ":3: messages[0] must be"),
        ('{"name": "a", "prompt": "x", "colour": 1}\n', ":1: unknown key(s) colour"),
        ('{"name": "a", "prompt": "x", "class": "full", "file": "missing.py"}\n', ":1: file not found"),
        ('{"name": "a", "prompt": "x"}\n{"name": "a", "prompt": "y"}\n', ":2: duplicate prompt name 'a'"),
        ('[1, 2]\n', ":1: each line must be a JSON object"),
    ],
)
def test_bad_jsonl_gets_a_line_numbered_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(content)
    with pytest.raises(CoderError) as err:
        workloads.load_prompts(path)
    assert message in str(err.value)
    assert str(path) in str(err.value)


def test_bad_region_lines(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("a = 1\nb = 2\n")
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"name": "r", "prompt": "x", "class": "region", "file": "f.py",
                                "lines": [2, 9]}) + "\n")
    with pytest.raises(CoderError, match=r"p.jsonl:1: \"lines\" must be \[first, last\] within 1..2"):
        workloads.load_prompts(path)


def test_bad_text_prompts(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("class: region\n   \n")
    with pytest.raises(CoderError, match=r"empty.txt:1: empty prompt"):
        workloads.load_prompts(empty)
    wrong = tmp_path / "wrong.md"
    wrong.write_text("class: sideways\nhello\n")
    with pytest.raises(CoderError, match=r"wrong.md:1: class must be one of"):
        workloads.load_prompts(wrong)
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"ok\nline two\n\xff\xfe")
    with pytest.raises(CoderError, match=r"bin.txt:3: not UTF-8"):
        workloads.load_prompts(binary)
    with pytest.raises(CoderError, match="no such file"):
        workloads.load_prompts(tmp_path / "nope")
    (tmp_path / "sub").mkdir()
    with pytest.raises(CoderError, match=r"no \.txt, \.md or \.jsonl"):
        workloads.load_prompts(tmp_path / "sub")


def test_prefill_prompt_is_long() -> None:
    msgs = workloads.prefill_messages(5000)
    assert len(msgs[0]["content"]) >= 5000
