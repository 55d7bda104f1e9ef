"""An extraction may not drop lines on the way: the H200's run-9 copy-extract reply, replayed.

The recorded reply (Qwen2.5-Coder-1.5B on the H200, held-out copy-extract wording 1) moved
``_reconstruct``'s state handling into ``_apply_state`` and left ``if deep: state = deepcopy(state, memo)``
in neither function; it was applied, and every deep copy of an object with state then shared it.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import make_repo

from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.extract_kept import dropped_in_extraction
from coder.edit.intent.read import read_instruction
from coder.edit.run.engine import EditEngine

DATA = Path(__file__).parents[1] / "data" / "edit" / "h200_1203" / "copy_extract_w1_run9.json"


def test_the_reply_that_dropped_the_deep_copy_of_state_is_refused(tmp_path: Path) -> None:
    recorded = json.loads(DATA.read_text())
    task = next(t for t in HELDOUT if t.name == "copy-extract")
    assert recorded["instruction"] == task.wordings[1]
    make_repo(tmp_path / "r", task.originals())
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / task.file, task.wordings[1], mode="auto")
    proposal = engine.evaluate(request, recorded["reply"], finish_reason="stop")
    assert not proposal.ok and proposal.refusal_code == "extract_uncalled"
    assert proposal.refusal == ("the extraction dropped `state = deepcopy(state, memo)`: it is neither in _reconstruct "
                                "nor in the new function any more (an extraction moves lines, it does not drop them)")


def test_a_block_two_callers_share_may_become_one_copy() -> None:
    task = next(t for t in TASKS if t.name == "colorsys-extract")
    old = task.originals()[task.file]
    spec = read_instruction(task.wordings[0], {task.file: old}, home=task.file)
    span = ("    rc = (maxc-r) / rangec\n    gc = (maxc-g) / rangec\n    bc = (maxc-b) / rangec\n    if r == maxc:\n"
            "        h = bc-gc\n    elif g == maxc:\n        h = 2.0+rc-bc\n    else:\n        h = 4.0+gc-rc\n"
            "    h = (h/6.0) % 1.0\n")
    assert old.count(span) == 2
    new = old.replace(span, "    h = _hue(r, g, b, maxc, rangec)\n").replace(
        "def rgb_to_hls(", "def _hue(r, g, b, maxc, rangec):\n" + span + "    return h\n\ndef rgb_to_hls(", 1)
    assert dropped_in_extraction(old, new, spec) is None
    lossy = new.replace("    h = (h/6.0) % 1.0\n    return h\n", "    return h\n")
    assert dropped_in_extraction(old, lossy, spec) == (
        "the extraction dropped `h = h / 6.0 % 1.0`: it is neither in rgb_to_hls, rgb_to_hsv nor in the new function "
        "any more (an extraction moves lines, it does not drop them)")


# a small module of our own: two methods share a guard, and a branch picks a value under the argument's name
GUARDED = '''import json


class Store:
    def __setitem__(self, key, value):
        if key.startswith("_"):
            raise KeyError("%r: private key %s" % (self.__class__.__name__, key))
        self.data[key] = value

    def __delitem__(self, key):
        if key.startswith("_"):
            raise KeyError("%r: private key %s" % (self.__class__.__name__, key))
        del self.data[key]


def dumps(obj, fmt):
    if callable(fmt):
        encode = fmt
    else:
        encode = json.dumps
    return encode(obj)
'''
EXTRACTED = '''import json


def _check_key(store, key):
    if key.startswith("_"):
        raise KeyError("%r: private key %s" % (store.__class__.__name__, key))


def _encoder(how):
    if callable(how):
        return how
    return json.dumps


class Store:
    def __setitem__(self, key, value):
        _check_key(self, key)
        self.data[key] = value

    def __delitem__(self, key):
        _check_key(self, key)
        del self.data[key]


def dumps(obj, fmt):
    encode = _encoder(fmt)
    return encode(obj)
'''


def test_lines_moved_under_the_new_functions_parameter_names_are_kept() -> None:
    said = "pull the private-key guard of Store.__setitem__ and Store.__delitem__ into _check_key(store, key)"
    spec = read_instruction(said, {"store.py": GUARDED}, home="store.py")
    assert dropped_in_extraction(GUARDED, EXTRACTED, spec) is None
    said = "factor the choice of encoder out of dumps into _encoder(how), returning it"
    spec = read_instruction(said, {"store.py": GUARDED}, home="store.py")
    assert dropped_in_extraction(GUARDED, EXTRACTED, spec) is None
    # a line that is gone under every name is still lost
    lost = EXTRACTED.replace('        raise KeyError("%r: private key %s" % (store.__class__.__name__, key))\n',
                             "        return\n")
    spec = read_instruction("pull the private-key guard of Store.__setitem__ and Store.__delitem__ into "
                            "_check_key(store, key)", {"store.py": GUARDED}, home="store.py")
    assert "private key" in (dropped_in_extraction(GUARDED, lost, spec) or "")
