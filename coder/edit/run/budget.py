"""The token budget of one edit request: room for the reply within the server's context."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coder.backends.runtime.server import ServerInfo
from coder.edit.source.trees import every_node
from coder.errors import CoderError
from coder.jsontypes import as_object

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec

# Output cap = expected reply + max(GROWTH_MIN, GROWTH_MARGIN × expected reply): room for a
# docstring per function or a new helper, not for the file a second time.
GROWTH_MARGIN = 0.3
GROWTH_MIN = 128
# A docstring grows with what it documents: a line or two per def, one per parameter ("Args: ...").
DOC_PER_DEF = 48
DOC_PER_PARAM = 20


@dataclass(frozen=True)
class Budget:
    """Prompt size, expected reply, and the ``max_tokens`` an edit request allows."""

    prompt_tokens: int
    reply_tokens: int  # expected reply (the target text re-emitted plus fence)
    max_tokens: int  # what the request allows the model to generate
    ctx: int

    @property
    def fits(self) -> bool:
        """True when the prompt and the expected reply fit the context."""
        return self.prompt_tokens + self.reply_tokens <= self.ctx


def docstring_room(spec: ChangeSpec, target: str) -> int:
    """The growth a docstring request needs for ``target``: per def it holds and per parameter of those defs.

    Seen on the H200: "document _reconstruct with a docstring" (a 46-line def of 8 parameters) wrote a
    148-token docstring against 128 tokens of growth, and stopped one line short of its closing fence.
    """
    if spec.action != "docstring" or "docstrings" not in spec.allows:
        return GROWTH_MIN
    try:  # a method's region is indented; auto asks it of each candidate, the checks read the tree again
        nodes = every_node(textwrap.dedent(target))
    except (SyntaxError, ValueError, RecursionError):
        return GROWTH_MIN
    fns = [n for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    params = sum(len(f.args.posonlyargs) + len(f.args.args) + len(f.args.kwonlyargs) for f in fns)
    return max(GROWTH_MIN, DOC_PER_DEF * len(fns) + DOC_PER_PARAM * params)


def plan_budget(prompt_tokens: int, target_tokens: int, ctx: int, *, mode: str, rel: str,
                instruction_tokens: int | Callable[[], int] = 0, growth: int = GROWTH_MIN) -> Budget:
    """Reserve room for the reply; refuse (suggesting region mode, or a shorter instruction) when it cannot fit.

    ``instruction_tokens`` may be a function: it is counted only when the budget does not fit. ``growth``:
    the least room over the expected reply (:func:`docstring_room` for a docstring request)."""
    reply = target_tokens + 16  # fence lines and a little slack for the change itself
    budget = Budget(prompt_tokens, reply, 0, ctx)
    if not budget.fits:
        if callable(instruction_tokens):
            instruction_tokens = instruction_tokens()
        if instruction_tokens > target_tokens:  # the instruction, not the file, is what does not fit
            raise CoderError(f"the instruction (~{instruction_tokens} tokens) is too long for the server context "
                             f"({ctx} tokens for it, {rel} and the rewrite); shorten it")
        hint = (" Edit a region instead: --mode region --symbol NAME or --lines A-B."
                if mode == "full" else " Choose a smaller region.")
        raise CoderError(
            f"{rel}: prompt ({prompt_tokens} tokens) plus the expected reply ({reply}) exceed the "
            f"server context ({ctx}).{hint}"
        )
    # Headroom for an edit that grows the text, capped by what the context has left. A reply
    # past it is a runaway (a loop the guard missed, a second copy of the file) and is refused
    # as truncated, so the margin is kept tight: every token over it is seconds of waiting.
    room = ctx - prompt_tokens
    max_tokens = min(room, reply + max(growth, round(reply * GROWTH_MARGIN)))
    return Budget(prompt_tokens, reply, max_tokens, ctx)


def server_ctx(server: ServerInfo) -> int | None:
    """The server's context window (``/props`` n_ctx, else ``/slots``); None when it does not say."""
    try:
        with server.api() as api:
            try:  # one request: a server without /props (vLLM) answers from /slots below
                props = api.props()
            except CoderError:
                props = {}
            settings = as_object(props.get("default_generation_settings"))
            ctx = props.get("n_ctx") or settings.get("n_ctx")
            if isinstance(ctx, int) and ctx > 0:
                return ctx
            slots = api.slots()
            if slots and isinstance(n_ctx := slots[0].get("n_ctx"), int) and n_ctx > 0:
                return n_ctx
    except (CoderError, ValueError):
        return None
    return None
