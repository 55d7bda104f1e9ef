"""The model's reading, replayed from a real 0.5B reply (recorded by tests/server/test_intent_server.py).

Everything on coder's side is real: the grammar that finds the ambiguity, the engine's request through
the one request runner, the JSON schema with the file's real symbols as an enum. Only the server is
the replay test double, answering what the real llama-server answered.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import make_repo

from coder.backends.runtime.handle import BackendHandle
from coder.edit.intent.describe import read_line
from coder.edit.intent.model_read import MAX_TOKENS, model_read, parse, schema
from coder.edit.intent.read import grammar_read, read_instruction
from coder.edit.intent.symbols import SymbolTable
from coder.edit.run.engine import EditEngine
from coder.testing.replay import HttpRecording, ReplayServer

DATA = Path(__file__).parents[1] / "data" / "intent"
QUEUE = (Path(__file__).parents[2] / "coder" / "bench" / "edits" / "files" / "queue.py.txt").read_text()


def test_the_engine_asks_once_under_an_enum_of_the_real_symbols(tmp_path: Path) -> None:
    recording = HttpRecording.load(DATA / "read_put.json")
    root = tmp_path / "repo"
    make_repo(root, {"queue.py": QUEUE})
    with ReplayServer(recording) as server:
        engine = EditEngine(BackendHandle(recording.server_info(server.url)), root)
        snap, _ = engine.check_target(root / "queue.py")
        spec = engine.read(snap, "Add a docstring to put")
        sent = server.chat_requests
    assert len(sent) == 1
    body = sent[0]
    assert isinstance(body, dict) and body["max_tokens"] == MAX_TOKENS and body["temperature"] == 0.0
    fmt = body["response_format"]
    assert isinstance(fmt, dict) and fmt["type"] == "json_schema"
    target_enum = fmt["json_schema"]["schema"]["properties"]["target"]["enum"]
    assert target_enum == ["Queue.put", "_PySimpleQueue.put", "none"]  # only what "put" could mean, and none
    reply = json.loads((DATA / "read_put.reply.txt").read_text())
    # the grammar had the action (a docstring); the model settled which put
    assert (spec.action, [s.qualname for s in spec.targets], spec.read_by) == ("docstring", [reply["target"]],
                                                                                "model")
    assert spec.allows == {"docstrings"} and spec.ambiguous == ()
    assert read_line(spec).startswith("read by the model in ")
    assert read_line(spec).endswith(f": docstrings method {reply['target']}")


def test_an_unusable_reply_keeps_the_grammars_reading() -> None:
    table = SymbolTable.of({"queue.py": QUEUE}, "queue.py")
    spec = grammar_read("Add a docstring to put", table)
    assert spec.ambiguous == ("put",)
    kept = model_read(spec, table, lambda messages, schema, n: '{"action": "docstring", "target": "nowhere"}')
    assert kept.read_by == "grammar" and kept.ambiguous == ("put",) and "not usable" in kept.notes[-1]
    failed = model_read(spec, table, lambda messages, schema, n: (_ for _ in ()).throw(OSError("down")))
    assert failed.read_by == "grammar" and "could not be asked" in failed.notes[-1]


def test_the_schema_names_only_real_symbols_and_parse_holds_to_it() -> None:
    table = SymbolTable.of({"queue.py": QUEUE}, "queue.py")
    symbols = table.lookup("put")
    got = schema(symbols)
    assert got["required"] == ["action", "target"]
    assert parse('{"action": "change", "target": "Queue.put"}', symbols) == ("change", symbols[0])
    assert parse('{"action": "change", "target": "put_nowait"}', symbols) is None  # not a candidate
    assert parse('{"action": "dance", "target": "Queue.put"}', symbols) is None
    assert parse("not json", symbols) is None


def test_no_server_no_model_reading() -> None:
    spec = read_instruction("Add a docstring to put", {"queue.py": QUEUE}, home="queue.py")
    assert spec.read_by == "grammar" and spec.ambiguous == ("put",)


def test_a_plain_word_that_is_also_a_symbol_is_left_to_the_model_with_only_its_symbols() -> None:
    from coder.edit.intent.model_read import candidates
    from coder.edit.intent.read import needs_model

    textwrap = (Path(__file__).parents[2] / "coder" / "bench" / "edits" / "files" / "textwrap.py.txt").read_text()
    spec = read_instruction("Make the output fill the terminal width", {"t.py": textwrap}, home="t.py")
    assert spec.targets == () and spec.facts.doubtful == ("fill",) and needs_model(spec)
    table = SymbolTable.of({"t.py": textwrap}, "t.py")
    assert [s.qualname for s in candidates(spec, table)] == ["TextWrapper.fill", "fill"]
    plain = read_instruction("Add type hints to every function in this file", {"t.py": textwrap}, home="t.py")
    assert not needs_model(plain)  # the grammar settled it: no request


TEXTWRAP = (Path(__file__).parents[2] / "coder" / "bench" / "edits" / "files" / "textwrap.py.txt").read_text()


def test_a_fault_reported_with_no_place_in_a_long_file_asks_where_and_stays_a_fix() -> None:
    # run 19: such a report went in windows (modulefinder, 666 lines), each window sent the report; here the model
    # says which function, under an enum of the file's functions and methods (never a whole class)
    asked: list[dict[str, object]] = []

    def ask(messages: object, schema_: dict[str, object], n: int) -> str:
        asked.append(schema_)
        return '{"action": "docstring", "target": "TextWrapper._split"}'  # a wrong action is not taken

    said = "long words get split in the middle of a hyphenated name even with break_on_hyphens off. pls fix"
    spec = read_instruction(said, {"textwrap.py": TEXTWRAP}, home="textwrap.py", ask=ask)
    assert len(asked) == 1
    enum = asked[0]["properties"]["target"]["enum"]  # type: ignore[index]
    assert "TextWrapper._split" in enum and "TextWrapper" not in enum and enum[-1] == "none"
    assert (spec.action, [s.qualname for s in spec.targets], spec.read_by) == ("change", ["TextWrapper._split"],
                                                                                "model")
    assert spec.facts.fault


def test_a_fault_in_a_short_file_or_with_its_place_named_is_not_asked_where() -> None:
    def ask(messages: object, schema_: object, n: int) -> str:
        raise AssertionError("asked")

    colorsys = (Path(__file__).parents[2] / "coder" / "bench" / "edits" / "files" / "colorsys.py.txt").read_text()
    short = read_instruction("hue comes out wrong for pure blue. pls fix", {"colorsys.py": colorsys},
                             home="colorsys.py", ask=ask)
    assert short.read_by == "grammar" and short.targets == ()  # one whole-file request, with all its mending
    named = read_instruction("dedent leaves a tab in front of some lines, please fix", {"textwrap.py": TEXTWRAP},
                             home="textwrap.py", ask=ask)
    assert [s.qualname for s in named.targets] == ["dedent"]


def test_the_models_pick_for_an_ambiguous_word_joins_the_names_the_grammar_was_sure_of() -> None:
    table = SymbolTable.of({"queue.py": QUEUE}, "queue.py")
    spec = grammar_read("Add docstrings to put and join", table)
    assert ([s.qualname for s in spec.targets], spec.ambiguous) == (["Queue.join"], ("put",))
    read = model_read(spec, table, lambda messages, schema, n: '{"action": "docstring", "target": "Queue.put"}')
    assert [s.qualname for s in read.targets] == ["Queue.join", "Queue.put"] and read.read_by == "model"
