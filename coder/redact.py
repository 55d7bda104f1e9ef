"""Keep API keys out of everything coder records: argv lists, JSON documents, log lines."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

REDACTED = "<redacted>"
# flags whose value is a secret (llama.cpp, vLLM, SGLang, coder itself)
SECRET_FLAGS = ("--api-key", "--api_key", "--hf-token", "--token", "--ssl-keyfile-password")


def redact_argv(argv: Sequence[str], secrets: Iterable[str | None] = ()) -> list[str]:
    """``argv`` with the value of every secret flag (``--api-key K`` and ``--api-key=K``) replaced."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
            continue
        flag, eq, _ = arg.partition("=")
        if flag in SECRET_FLAGS:
            if eq:
                out.append(f"{flag}={REDACTED}")
            else:
                out.append(arg)
                hide_next = True
            continue
        out.append(arg)
    known = [s for s in secrets if s]
    return [redact_text(a, known) for a in out] if known else out


def redact_text(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every occurrence of each (non-trivial) secret replaced."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    return text


def scrub(value: T, secrets: Iterable[str | None]) -> T:
    """A copy of a JSON-like value with every secret string replaced, at any depth (same shape)."""
    known = [s for s in secrets if s and len(s) >= 4]
    if not known:
        return value

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return redact_text(node, known)
        if isinstance(node, dict):
            return {walk(k): walk(v) for k, v in node.items()}
        if isinstance(node, tuple):
            return tuple(walk(v) for v in node)
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    copy: T = walk(value)  # walk rebuilds every container as the same type
    return copy
