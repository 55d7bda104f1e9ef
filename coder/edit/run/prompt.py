"""The edit prompt protocol, shaped so speculative drafters keep matching.

Layout (most stable first, so the server's prompt cache keeps the prefix across
consecutive edits): fixed system prompt → repository context frozen per session →
exactly one verbatim copy of the file (or region plus a few lines of context),
without line numbers → the instruction last. The reply must be one fenced block in
the same shape as the input block, so an n-gram or draft model copying the input
is right most of the time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from coder.edit.source.regions import Region, Split, context_lines, split

SYSTEM_PROMPT = (
    "You are a precise code editor. You receive one file, or one region of a file, in a fenced "
    "code block, and an instruction. Reply with exactly one fenced code block that holds the "
    "complete new version of that same file or region, using the same fence and language tag. "
    "Copy every unchanged line exactly. Never abbreviate or elide code, never write placeholders "
    "such as '... rest unchanged ...', and write nothing after the closing fence."
)

CONTEXT_LINES = 3  # lines shown before and after a region
REGION_ASK = "Reply with the complete new {what} in one fenced block, nothing else."

# Extension -> language tag written after the opening fence (display/hint only).
LANGUAGE_TAGS = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".ts": "typescript", ".tsx": "tsx", ".jsx": "jsx", ".rs": "rust", ".go": "go", ".c": "c",
    ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".java": "java", ".rb": "ruby",
    ".sh": "bash", ".bash": "bash", ".md": "markdown", ".toml": "toml", ".json": "json",
    ".yaml": "yaml", ".yml": "yaml", ".html": "html", ".css": "css", ".sql": "sql", ".lua": "lua",
}


def language_tag(path: str) -> str:
    """The code-fence language tag for ``path`` (empty when unknown)."""
    dot = path.rfind(".")
    return LANGUAGE_TAGS.get(path[dot:].lower(), "") if dot >= 0 else ""


def fence_for(*texts: str) -> str:
    """A backtick fence longer than any backtick run inside ``texts`` (at least three)."""
    longest = 0
    for text in texts:
        run = 0
        for ch in text:
            run = run + 1 if ch == "`" else 0
            longest = max(longest, run)
    return "`" * max(3, longest + 1)


@dataclass(frozen=True)
class EditPrompt:
    """What the model sees and how its reply is delimited."""

    messages: list[dict[str, str]]
    fence: str
    lang: str
    target: str  # the text the reply replaces (whole file or region), newline-normalised


def _block(fence: str, lang: str, body: str) -> str:
    if body and not body.endswith("\n"):
        body += "\n"
    return f"{fence}{lang}\n{body}{fence}\n"


def build_messages(
    rel_path: str,
    target: str,
    instruction: str,
    *,
    mode: str = "full",
    repo_context: str = "",
    before: str = "",
    after: str = "",
    region_label: str = "",
) -> EditPrompt:
    """Messages for one edit request.

    ``target`` is the whole file (``mode="full"``) or the region; ``before``/``after``
    are a few surrounding lines shown (in their own blocks) only in region mode.
    ``repo_context`` must be frozen for the session: any change there re-prefills
    everything after it.
    """
    lang = language_tag(rel_path)
    fence = fence_for(target, before, after)
    parts: list[str] = []
    if repo_context:
        parts.append(repo_context.rstrip("\n") + "\n")
    if mode == "region":
        what = region_label or "the region"
        # Context first, the region last: the one block the reply copies sits right
        # before generation, so drafters match it and not the neighbouring code.
        if before:
            parts.append(f"File: {rel_path}, lines just before {what} (context only, do not repeat):\n"
                         + _block(fence, lang, before))
        if after:
            parts.append(f"Lines just after {what} (context only, do not repeat):\n"
                         + _block(fence, lang, after))
        parts.append(f"File: {rel_path}, the region to rewrite ({what}):\n" + _block(fence, lang, target))
        ask = REGION_ASK.format(what=what)
    else:
        parts.append(f"File: {rel_path}\n" + _block(fence, lang, target))
        ask = "Reply with the complete new file in one fenced block, nothing else."
    parts.append(f"Instruction: {instruction.strip()}\n{ask}")
    return EditPrompt(
        messages=[
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": "\n".join(parts)},
        ],
        fence=fence,
        lang=lang,
        target=target,
    )


def region_prompt(rel_path: str, text: str, region: Region, instruction: str, *,
                  repo_context: str = "") -> tuple[EditPrompt, Split]:
    """The region-mode prompt for ``region`` of ``text``, and the file cut around it.

    The one place a region prompt is built: the edit and the cache warm-up (which cuts it
    at the instruction) must send the same bytes.
    """
    parts = split(text, region)
    prompt = build_messages(
        rel_path, parts.target, instruction, mode="region", repo_context=repo_context,
        before=context_lines(parts.before, CONTEXT_LINES, tail=True),
        after=context_lines(parts.after, CONTEXT_LINES, tail=False),
        region_label=region.label,
    )
    return prompt, parts


def predicted_reply(prompt: EditPrompt) -> str:
    """The reply if nothing changed: the target inside the same fence the reply must use.

    Sent as the request's ``prediction`` so coder's llama-server build drafts the copy from it.
    """
    return _block(prompt.fence, prompt.lang, prompt.target)


def repo_context(name: str, files: Sequence[str], limit: int = 40) -> str:
    """A short, deterministic description of the repository (sorted, capped file list)."""
    shown = sorted(files)[:limit]
    more = f"\n(+{len(files) - limit} more files)" if len(files) > limit else ""
    listing = "\n".join(shown)
    return f"Repository: {name}\nFiles:\n{listing}{more}\n" if shown else f"Repository: {name}\n"
