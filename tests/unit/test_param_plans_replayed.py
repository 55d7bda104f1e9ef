"""Add-parameter edits the 1.5B got half right on the H200 (run 9), replayed from a real model through today's coder.

The recordings in ``tests/data/param_plans/`` are every HTTP exchange of one pair each, sent by the bench's own
``run_task`` to Qwen2.5-Coder-1.5B-Instruct Q4_K_M on llama-server (AMD EPYC, 2 cores, greedy) and kept by
:class:`coder.testing.record.RecordingProxy` (``scripts/dev/param_header_ab.py`` records them again). The replay
test double answers them here; everything on coder's side is real, the task's own judge included. On the same
CPU without these changes (``--variants off``), glob-callers w0, timeit-param w1 and both quopri-param wordings were
refused, as on the H200:

- glob-callers w0 (w1 and timeit-param w0 were right, and still are): asked with the whole instruction,
  ``_listdir`` took include_hidden and its body stayed as it was, twice (shown the header with it on the retry,
  too). coder writes the calls, so the region is now asked the instruction without them
  (:func:`coder.edit.intent.params.without_calls`), and the first reply filters the names;
- timeit-param w1: ``def reindent(src, indent=' ')``, twice, asked the whole instruction or only its own part.
  Asked again with the header written by coder (:func:`coder.edit.run.plan_step.header_shown`), the reply
  uses ``char``. Only a reply without the parameter gets that retry: shlex-param w0's (``sep`` taken, unused)
  was mended by the plain retry and not by the header;
- quopri-param w0: ``HEX[c//16].upper()``, retry included. Told that HEX itself is a bytes that has ``lower``,
  the retry writes lower-case digits of its own. w1's retry then wrote ``c = c.lower()`` after ``c = ord(c)``,
  with the flag named ``lower`` (as its retry without the hint did): applied, wrong; a local bound to ``ord()``
  is now known to be an int, and it is refused.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from coder.bench.edits.run import run_task
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.testing.replay import HttpRecording, ReplayServer

DATA = Path(__file__).parents[1] / "data" / "param_plans"
TASKS_BY_NAME = {t.name: t for t in (*TASKS, *HELDOUT)}
CASES = {  # recording -> (outcome, the judge's words or the refusal, requests)
    "glob-callers_w0": ("correct", "parameter added and passed at 2 call(s)", 1),
    "glob-callers_w1": ("correct", "parameter added and passed at 2 call(s)", 1),
    "timeit-param_w1": ("correct", "parameter added and passed at 2 call(s)", 2),
    # the reply took sep and left it unused: asked again as before (the region as it is), the retry uses it; shown
    # the header written by coder instead, it left sep unused again (on the CPU, the same first reply)
    "shlex-param_w0": ("correct", "parameter added and used", 2),
    # correct before too (run 9 and the CPU), and still: asked without the calls, its first reply is right
    "timeit-param_w0": ("correct", "parameter added and passed at 2 call(s)", 1),
    # no example checks the new flag: two samples are drawn and agree (run/agree.py)
    "quopri-param_w0": ("correct", "4 behaviour case(s) right, the rest unchanged", 4),
    "quopri-param_w1": ("refused", "c is an int, which has no attribute lower (reading it raises AttributeError)", 2),
}


def _prompt(body: object) -> str:
    """A chat request's messages, the throw-away repository's name left out (each run has its own)."""
    assert isinstance(body, dict)
    return re.sub(r"Repository: \S+", "Repository: R", json.dumps(body["messages"]))


@pytest.mark.parametrize("case", sorted(CASES))
def test_replayed_under_todays_coder(case: str) -> None:
    name, wording = case.rsplit("_w", 1)
    task = TASKS_BY_NAME[name]
    recording = HttpRecording.load(DATA / f"{case}.json")
    assert recording.meta["instruction"] == task.wordings[int(wording)]
    outcome, why, asked = CASES[case]
    with ReplayServer(recording, strict=False) as server:
        out = run_task(recording.server_info(server.url), task, "auto", wording=int(wording))
        sent = server.chat_requests
    # the prompts coder sends today are the recorded ones, word for word
    assert [_prompt(b) for b in sent] == [_prompt(c.body) for c in recording.chats][:len(sent)]
    assert (out.outcome, len(sent)) == (outcome, asked)
    assert why in out.why
