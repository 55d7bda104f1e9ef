"""An instruction that starts with a dash is the instruction: ``coder edit f.py -m "-1 is the default"``.

argparse took it for an option and refused the command ("expected one argument"); the hostile-bytes property test
found it (``-m -\\x00``, 2026-12-04). ``coder.cli.main.dash_message`` joins it to its ``-m``.
"""

from __future__ import annotations

import pytest

from coder.cli.main import build_parser, dash_message


@pytest.mark.parametrize("instruction", ["-1 is the default now", "- fix the off-by-one", "-\x00", "--x=1 please"])
def test_a_dash_instruction_is_taken_as_the_instruction(instruction: str) -> None:
    parser = build_parser("edit")
    for flag in ("-m", "--message"):
        args = parser.parse_args(dash_message(["edit", "app.py", flag, instruction, "--yes"], parser))
        assert args.message == instruction and args.yes


def test_a_known_option_after_m_is_still_a_missing_instruction() -> None:
    parser = build_parser("edit")
    argv = ["edit", "app.py", "-m", "--yes"]
    assert dash_message(argv, parser) == argv
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(dash_message(argv, parser))
    assert exc.value.code == 2


def test_other_commands_and_plain_instructions_are_untouched() -> None:
    edit = build_parser("edit")
    plain = ["edit", "app.py", "-m", "add a docstring", "--dry-run"]
    assert dash_message(plain, edit) == plain
    bench = build_parser("bench")
    argv = ["bench", "-m", "-x"]
    assert dash_message(argv, bench) == argv
