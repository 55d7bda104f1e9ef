"""coder's per-request draft cap for llama-server, applied as anchored source edits.

Build 11434 compiled its per-request speculative fields out. These three edits
let a request *lower* the per-step draft length (``"speculative.n_max": N``)
below the launch ``--spec-draft-n-max``; drafts are already truncated to the
slot's per-step maximum for every speculator type, so nothing else changes.
Every anchor must match exactly once, so a moved source tree fails loudly.
"""

from __future__ import annotations

from pathlib import Path

from coder.backends.toolchain.anchored import AnchoredEdit, apply_edits
from coder.spec_vocab import LLAMACPP_CAP_FIELD

PATCH_NAME = "draft-cap-v1"
REQUEST_FIELD = LLAMACPP_CAP_FIELD
MARKER = "coder: per-request draft cap"


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
