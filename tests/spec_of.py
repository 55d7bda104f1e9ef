"""Tests read an instruction as coder does (the grammar only: no server), then call the checks that take a spec.

The wrappers keep the tests in the user's words: each reads the instruction once, over the
file being checked, exactly as :meth:`coder.edit.run.engine.EditEngine.read` does without a server.
"""

from __future__ import annotations

from pathlib import Path, PurePath

from coder.edit.checks import code_rules, explained, result
from coder.edit.checks.reply import EditRefused
from coder.edit.intent.read import read_instruction
from coder.edit.intent.spec import ChangeSpec
from coder.edit.plan import auto
from coder.edit.plan import derive as planning
from coder.edit.plan.auto import Target
from coder.edit.plan.derive import Plan
from coder.edit.source.regions import Region


def spec_of(instruction: str, rel: str = "m.py", text: str = "") -> ChangeSpec:
    """The change spec of ``instruction`` over the one file ``rel`` holding ``text``."""
    return read_instruction(instruction, {rel: text}, home=rel)


def check_scope(old: str, new: str, instruction: str, *, rel: str, region: Region | None = None) -> explained.Scope:
    """:func:`coder.edit.checks.explained.check_scope` of ``instruction`` as read over ``old``."""
    return explained.check_scope(old, new, spec_of(instruction, rel, old), rel=rel, region=region)


def check_result(path: Path | str, new: str, *, old: str | None = None,
                 instruction: str | None = None) -> EditRefused | None:
    """:func:`coder.edit.checks.result.check_result` of ``instruction`` as read over ``old``."""
    text = old if old is not None else Path(path).read_text(encoding="utf-8")
    rel = PurePath(path).name
    spec = None if instruction is None else spec_of(instruction, rel, text)
    return result.check_result(path, new, old=old, spec=spec)


def extracted_uncalled(old: str, new: str, instruction: str, rel: str = "m.py") -> str | None:
    """:func:`coder.edit.checks.code_rules.extracted_uncalled` of ``instruction`` as read over ``old``."""
    return code_rules.extracted_uncalled(old, new, spec_of(instruction, rel, old))


def find_target(rel: str, text: str, instruction: str) -> Target:
    """:func:`coder.edit.plan.auto.find_target` of ``instruction`` as read over ``text``."""
    return auto.find_target(rel, text, spec_of(instruction, rel, text))


def derive(rel: str, text: str, instruction: str) -> Plan | None:
    """:func:`coder.edit.plan.derive.derive` of ``instruction`` as read over ``text``."""
    return planning.derive(rel, text, spec_of(instruction, rel, text))


def windows(rel: str, text: str, instruction: str) -> Plan | None:
    """:func:`coder.edit.plan.derive.windows` of ``instruction`` as read over ``text``."""
    return planning.windows(rel, text, spec_of(instruction, rel, text))
