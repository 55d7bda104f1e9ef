"""A def described instead of named (:mod:`coder.edit.intent.described`), read against shipped files nobody here
wrote, in wordings of this file's own (the fresh sets' wordings are the bench's, not pinned here)."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.intent import phrasing
from coder.edit.intent.described import find
from coder.edit.intent.names import VERBS, tokens
from coder.edit.intent.read import read_instruction
from coder.edit.intent.symbols import SymbolTable


def _read(file: str, instruction: str):  # type: ignore[no-untyped-def]
    rel = file.rsplit("/", 1)[-1]
    return read_instruction(instruction, {rel: source(file)}, home=rel)


@pytest.mark.parametrize(("file", "instruction", "target"), [
    ("textwrap.py", "Add a docstring to the function that removes any common leading whitespace from every line",
     "dedent"),
    ("shlex.py", "Please give the function that joins the tokens back into a command line a docstring", "join"),
    ("fresh3/tracemalloc.py", "add a comment to the method that compares two snapshots", "Snapshot.compare_to"),
    # "private" keeps the _ names; "enum" the Enum classes; "dead" the defs nothing else names
    ("fresh3/py_compile.py", "document the enum that says how stale pycs are detected", "PycInvalidationMode"),
    ("fresh2/codeop.py", "delete the dead function that looks at two syntax errors", "_is_syntax_error"),
])
def test_a_description_reads_as_the_def_it_describes(file: str, instruction: str, target: str) -> None:
    spec = _read(file, instruction)
    assert [s.qualname for s in spec.targets] == [target]
    assert any(n.startswith("described: ") and target in n for n in spec.notes)


@pytest.mark.parametrize(("file", "instruction", "old", "new"), [
    ("fnmatch.py", "the function that turns a shell pattern into a regular expression should be called glob_to_regex",
     "translate", "glob_to_regex"),
    ("fresh3/gzip.py", "I'd like the helper that writes a 32-bit unsigned value to be named _put_u32", "write32u",
     "_put_u32"),
])
def test_a_described_def_given_only_a_new_name_is_renamed(file: str, instruction: str, old: str, new: str) -> None:
    spec = _read(file, instruction)
    assert (spec.action, spec.renames, [s.qualname for s in spec.targets]) == ("rename", ((old, new),), [old])


def test_a_described_class_moves_alone_and_its_words_name_nothing() -> None:
    spec = _read("queue.py", "move the class that retrieves entries in priority order to the end of the file")
    assert (spec.action, [s.qualname for s in spec.targets]) == ("move", ["PriorityQueue"])


def test_a_new_def_described_is_no_def_of_the_file() -> None:
    spec = _read("glob.py", "add a new helper that escapes the magic characters of a pattern")
    assert spec.action == "add_function" and not spec.targets
    text = source("glob.py")
    instruction = "write a new function that escapes magic characters"
    assert find(instruction, tokens(instruction), SymbolTable.of({"glob.py": text}, "glob.py")) is None


def test_a_description_that_leads_nowhere_clearly_is_left_to_the_model_reader() -> None:
    """Words every candidate shares leave several: the model reader chooses among the best (none taken here)."""
    spec = _read("textwrap.py", "add a docstring to the method that deals with the text")
    assert not spec.targets
    assert len(spec.ambiguous) >= 2 and all(s in {q.qualname for q in SymbolTable.of(
        {"textwrap.py": source("textwrap.py")}, "textwrap.py").symbols} for s in spec.ambiguous)


def test_every_method_of_a_class_is_no_description() -> None:
    instruction = "add a docstring to every method of the class `TopologicalSorter` that lacks one"
    spec = _read("graphlib.py", instruction)
    assert not any(n.startswith("described") for n in spec.notes)


@pytest.mark.parametrize(("words", "at", "verb"), [
    (["I'd", "like", "it", "relocated", "to", "the", "end"], 3, "relocate"),
    (["I", "want", "them", "sorted", "by", "name"], 3, "sort"),
    (["it", "relocated", "nothing"], 1, "relocated"),  # no wish: the word itself
    (["I'd", "like", "it", "colored"], 3, "colored"),  # no verb of the reading
])
def test_a_wish_with_a_participle_says_the_verb(words: list[str], at: int, verb: str) -> None:
    assert phrasing.wished(words, at, {**VERBS, "sort": "change"}) == verb
