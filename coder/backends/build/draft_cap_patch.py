"""coder's per-request draft cap for llama-server, applied as anchored source edits.

Build 11434 compiled its per-request speculative fields out. These three edits
let a request *lower* the per-step draft length (``"speculative.n_max": N``)
below the launch ``--spec-draft-n-max``; drafts are already truncated to the
slot's per-step maximum for every speculator type, so nothing else changes.
Every anchor must match exactly once, so a moved source tree fails loudly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.errors import CoderError
from coder.spec_vocab import LLAMACPP_CAP_FIELD

PATCH_NAME = "draft-cap-v1"
REQUEST_FIELD = LLAMACPP_CAP_FIELD
MARKER = "coder: per-request draft cap"


@dataclass(frozen=True)
class AnchoredEdit:
    """Insert ``text`` right after the single occurrence of ``anchor`` in ``path``.

    With ``replace`` the text takes the anchor's place instead (it must not contain the anchor).
    """

    path: str
    anchor: str
    text: str
    replace: bool = False


EDITS: tuple[AnchoredEdit, ...] = (
    AnchoredEdit(
        "tools/server/server-task.h",
        "    int32_t n_cmpl    =  1; // number of completions to generate from this prompt\n",
        "    int32_t spec_n_max_cap = -1; // coder: per-request draft cap, -1 = not set\n",
    ),
    AnchoredEdit(
        "tools/server/server-schema.cpp",
        '        ->set_desc("Min chunk size to attempt reusing from the cache via KV shifting. '
        'See --cache-reuse arg"));\n',
        "\n    // coder: per-request draft cap (lowers, never raises, --spec-draft-n-max)\n"
        f'    add((new field_num("{REQUEST_FIELD}", params.spec_n_max_cap))\n'
        "        ->set_hard_limits(0, INT32_MAX)\n"
        '        ->set_desc("Cap on draft tokens per speculative step for this request"));\n',
    ),
    AnchoredEdit(
        "tools/server/server-context.cpp",
        "            n_draft_max = std::min(n_draft_max, n_remaining() - 1);\n        }\n",
        "\n        // coder: per-request draft cap\n"
        "        if (task->params.spec_n_max_cap >= 0) {\n"
        "            n_draft_max = std::min(n_draft_max, (int) task->params.spec_n_max_cap);\n"
        "        }\n",
    ),
)


def apply(llama_root: Path) -> None:
    """Apply every edit to the llama.cpp tree at ``llama_root`` (idempotent)."""
    apply_edits(PATCH_NAME, EDITS, llama_root)


def apply_edits(patch_name: str, edits: tuple[AnchoredEdit, ...], llama_root: Path) -> None:
    """Apply ``edits`` in order (idempotent); an anchor that is not there exactly once fails loudly.

    Shared by every patch module so they all fail, and skip already-applied edits, the same way.
    """
    for edit in edits:
        path = llama_root / edit.path
        source = path.read_text(encoding="utf-8")
        if edit.text in source:
            continue
        count = source.count(edit.anchor)
        if count != 1:
            raise CoderError(
                f"{patch_name} patch: anchor found {count}× in {edit.path}; the llama.cpp source moved"
            )
        new = edit.text if edit.replace else edit.anchor + edit.text
        path.write_text(source.replace(edit.anchor, new), encoding="utf-8")
