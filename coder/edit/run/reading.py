"""Reading an instruction for one file: the grammar, then the running model once when the grammar needs it.

The model is asked through the one request runner, under a JSON schema whose symbol fields are enums of
the file's real symbols (:mod:`coder.edit.intent.model_read`). In ``coder edit --timings`` the completion
is the model's time, the request's, as every chat completion's; coder's own work around it is ``reading``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from coder.edit.intent.read import needs_model, read_instruction
from coder.edit.intent.symbols import tracked_python
from coder.kchoice import KChoice

if TYPE_CHECKING:
    from coder.backends.runtime.handle import BackendHandle
    from coder.edit.apply.files import FileSnapshot
    from coder.edit.intent.model_read import Asker, Message
    from coder.edit.intent.spec import ChangeSpec


def read_for(snap: FileSnapshot, instruction: str, *, root: Path, has_repo: bool,
             backend: BackendHandle | None) -> ChangeSpec:
    """The change spec of ``instruction`` for ``snap``: its names resolved against the file's symbols.

    A reach beyond the file ("everywhere") resolves against the repository's tracked Python files too.
    The running model (``backend``; None: no server) is asked once only when the grammar finds no action
    or an ambiguous name.
    """
    files = {snap.rel: snap.text}
    first = read_instruction(instruction, files, home=snap.rel)  # the grammar alone: which files to read
    repository = first.reach == "everywhere" and has_repo and snap.rel.endswith((".py", ".pyi"))
    if repository:  # every tracked file: one that uses the names is in reach; none, and the file is the reach
        files = {**tracked_python(root, exclude=[snap.rel]), snap.rel: snap.text}
    elif backend is None or not needs_model(first):
        return first  # settled by the grammar: the file is not parsed again
    ask = json_asker(backend) if backend is not None else None  # "everywhere" without a server: the grammar only
    return read_instruction(instruction, files, home=snap.rel, ask=ask, repository=repository)  # the model once


def json_asker(backend: BackendHandle, phase: str = "reading",
               why: str = "reading the instruction") -> Asker:
    """Send one short question under a JSON schema; coder's own time in it goes to ``phase`` of ``--timings``.

    The completion itself is the model's time, the request's (:attr:`coder.telemetry.timings.RoundTrip.charged`);
    the reading's phase by default holds what coder does around it.
    """
    def ask(messages: list[Message], schema: dict[str, object], max_tokens: int) -> str:
        """One short request under a JSON schema, through the one request runner (no k change, no learning)."""
        from coder.backends.runtime.request import run_request
        from coder.telemetry import timings

        choice = KChoice(None, "fresh", f"{why}: no k change", "launch")
        with timings.phase(phase):
            outcome = run_request(backend, messages, choice, max_tokens=max_tokens, temperature=0.0,
                                  extra_body={"response_format": {"type": "json_schema", "json_schema": {
                                      "name": "change", "schema": schema}}},
                                  metrics=False, learn=False)
        return outcome.text
    return ask
