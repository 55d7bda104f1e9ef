"""A deleted method's module-level alias goes with it, mechanically; left behind, the lost-member check names it.

The sixth fresh set's ``calendar-delete`` (2-core CPU, run 20): the alias line ``prweek = c.prweek`` was sent to the
model to "drop the use", came back unchanged, and the file no longer imported. Our own small module here.
"""

from __future__ import annotations

from pathlib import Path

from cli_helpers import make_repo

from coder.bench.edits.run import proposed
from coder.edit.checks.lost_members import lost_but_used
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, plan_for, run_plan

TEXT = '''class Cal:
    def show(self, week):
        print(self.format(week))

    def format(self, week):
        return " ".join(week)


c = Cal()
show = c.show
format_week = c.format
'''


def test_the_alias_of_a_deleted_method_is_cut_with_it_and_no_model_is_asked(tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"cal.py": TEXT})
    engine = EditEngine(None, tmp_path / "r")
    prep = plan_for(engine, tmp_path / "r" / "cal.py", "drop Cal.show, nobody prints weeks any more")
    assert isinstance(prep, PlanRequest) and not prep.requests

    def no_model(_request: object) -> object:
        raise AssertionError("asked the model")

    proposal = run_plan(engine, prep, no_model)
    assert proposal.ok, proposal.refusal
    new = proposed(proposal, tmp_path / "r")["cal.py"]
    assert "def show" not in new and "show = c.show" not in new and "format_week = c.format" in new


def test_a_use_left_on_a_module_level_instance_of_the_files_class_is_named() -> None:
    left = TEXT.replace('''    def show(self, week):
        print(self.format(week))

''', "")
    assert "c.show" in (lost_but_used(TEXT, left) or "")
