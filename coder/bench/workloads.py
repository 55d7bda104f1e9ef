"""What ``coder bench`` sends: the built-in suite and user prompt files.

The built-in suite mirrors the seeds' method (code generation, prose explanation,
arithmetic word problem, refactor — all ``fresh`` generation) and adds the two edit
classes coder actually issues (``full`` rewrite and ``region`` edit) in the edit
engine's own prompt shape, on real source files shipped with the package.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coder.bench import inputs
from coder.bench.schema import WorkloadJSON
from coder.config import REQUEST_CLASSES
from coder.edit.run.prompt import build_messages
from coder.errors import CoderError
from coder.textsafe import one_line

PROMPT_SUFFIXES = (".txt", ".md")
_CLASS_HEADER = re.compile(r"^\s*class\s*:\s*(\w+)\s*$", re.IGNORECASE)
_PACKAGE = Path(__file__).resolve().parent.parent  # the installed ``coder`` package


@dataclass(frozen=True)
class Workload:
    """One prompt the bench sends, with the request class that picks its k."""

    name: str
    cls: str  # full | region | fresh
    messages: list[dict[str, str]]
    file: str | None = None  # source file an edit workload rewrites
    source: str = "builtin"  # where the prompt came from (path[:line] for user prompts)

    def to_json(self) -> WorkloadJSON:
        """The workload as recorded in the report (messages included)."""
        return {"name": self.name, "class": self.cls, "file": self.file, "source": self.source,
                "messages": self.messages}


_FRESH = (
    ("code", "Write a Python function `merge_intervals(intervals)` that merges overlapping closed "
             "intervals given as (start, end) tuples and returns them sorted. Include a docstring and "
             "three doctest examples."),
    ("prose", "Explain to a new programmer, in three short paragraphs, why a hash table gives "
              "average constant-time lookups and what makes the worst case slower."),
    ("arithmetic", "A bakery sells muffins at $3 each and cookies at $1.25 each. On Monday it sold "
                   "48 muffins and 3 times as many cookies; on Tuesday it sold 20% fewer of each. "
                   "What was the total revenue over both days? Show the working step by step."),
)
_REFACTOR_SOURCE = '''\
def report(rows):
    out = ""
    for i in range(len(rows)):
        r = rows[i]
        if r["qty"] > 0:
            if r["price"] != None:
                out = out + r["name"] + ": " + str(r["qty"] * r["price"]) + "\\n"
            else:
                out = out + r["name"] + ": n/a\\n"
    return out
'''


def sample_files() -> list[Path]:
    """Real source files for the edit workloads: the shipped samples (small first, then large)."""
    from coder import samples

    return [samples.sample_path(samples.SMALL), samples.sample_path(samples.LARGE)]


def _pick_region(lines: list[str], max_lines: int = 30) -> tuple[int, int]:
    """0-based [start, end) of the first top-level ``def``/``class``/``fn``/``func`` block (≤ max_lines)."""
    starts = [i for i, line in enumerate(lines)
              if re.match(r"(def|class|fn|func|function|pub fn|static|int|void)\b", line)]
    if not starts:
        return 0, min(len(lines), max_lines)
    start = starts[len(starts) // 2]  # a block from the middle of the file, not the imports
    end = start + 1
    while end < len(lines) and end - start < max_lines:
        if lines[end] and not lines[end][0].isspace() and not lines[end].startswith(("}", ")")):
            break
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # trailing blank lines belong to the gap, not the region
    return start, end


def edit_workloads(path: Path, rel: str | None = None) -> list[Workload]:
    """A ``full`` rewrite and a ``region`` edit of one real source file."""
    text = path.read_text(encoding="utf-8")
    rel = rel or path.name
    full = build_messages(rel, text, "Add a short comment above every function that has none. "
                          "Keep every other line exactly as it is.", mode="full")
    lines = text.splitlines(keepends=True)
    a, b = _pick_region(lines)
    region = build_messages(
        rel, "".join(lines[a:b]),
        "Add a one-line comment above each loop saying what it does; keep every other line identical.",
        mode="region", before="".join(lines[max(0, a - 3):a]), after="".join(lines[b:b + 3]),
        region_label=f"lines {a + 1}-{b}",
    )
    return [
        Workload(f"full:{rel}", "full", full.messages, file=rel),
        Workload(f"region:{rel}", "region", region.messages, file=rel),
    ]


def builtin_suite() -> list[Workload]:
    """The default workloads: four fresh prompts as in the seeds, then one full and one region edit."""
    out = [Workload(name, "fresh", [{"role": "user", "content": text}]) for name, text in _FRESH]
    out.append(Workload("refactor", "fresh", [{"role": "user", "content":
        "Refactor this Python function for readability (f-strings, direct iteration, `is not None`), "
        "keeping its behaviour identical. Reply with the new function only.\n\n"
        f"```python\n{_REFACTOR_SOURCE}```"}]))
    # Full rewrite of the small sample (its copy fits the 512-token cap and a 2k-token slot);
    # region edit inside the large one.
    small, large = sample_files()
    out.append(edit_workloads(small, _rel(small))[0])
    out.append(edit_workloads(large, _rel(large))[1])
    return out


def _rel(path: Path) -> str:
    return str(path.relative_to(_PACKAGE.parent)) if path.is_relative_to(_PACKAGE.parent) else path.name


def prefill_messages(n_chars: int) -> list[dict[str, str]]:
    """A long prompt (concatenated sample sources) for the prefill measurement, about ``n_chars`` long."""
    chunks: list[str] = []
    total = 0
    files = sample_files()
    while total < n_chars:
        for path in files:
            body = path.read_text(encoding="utf-8")
            chunks.append(f"# file: {path.name}\n{body}")
            total += len(chunks[-1])
            if total >= n_chars:
                break
    text = "".join(chunks)[:n_chars]
    return [{"role": "user", "content": f"{text}\n\nSummarise the code above in one sentence."}]


# ---------------------------------------------------------------- user prompt files


def load_prompts(path: Path) -> list[Workload]:
    """Workloads from a directory of ``.txt``/``.md`` files, one such file, or a JSONL file.

    A text prompt may start with a ``class: full|region|fresh`` line (default fresh).
    JSONL lines are ``{"name", "messages" | "prompt", "class"?, "file"?, "lines"?}``; with
    ``file`` and class full/region the prompt is the instruction and the request is built
    in the edit engine's shape (``lines: [first, last]`` picks the region, 1-based).
    """
    path = path.expanduser()
    if not path.exists():
        raise CoderError(f"{path}: no such file or directory")
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in (*PROMPT_SUFFIXES, ".jsonl") and not p.is_dir())
        if not files:
            raise CoderError(f"{path}: no .txt, .md or .jsonl prompt files in this directory")
        out: list[Workload] = []
        roots = inputs.allowed_roots(path)
        for file in files:
            inputs.confine(file, roots, str(file))  # a symlink out of the directory is refused
            out += _load_jsonl(file) if file.suffix == ".jsonl" else [_load_text(file)]
    elif path.suffix == ".jsonl":
        out = _load_jsonl(path)
    elif path.suffix in PROMPT_SUFFIXES:
        out = [_load_text(path)]
    else:
        raise CoderError(f"{path}: prompts must be a directory, .txt, .md or .jsonl file")
    seen: dict[str, str] = {}
    for w in out:
        if w.name in seen:
            raise CoderError(f"{w.source}: duplicate prompt name {w.name!r} (first at {seen[w.name]})")
        seen[w.name] = w.source
    return out


def _read(path: Path) -> str:
    return inputs.read_text(path)  # regular files only, size-checked first, no NUL bytes


def _load_text(path: Path) -> Workload:
    text = _read(path)
    lines = text.splitlines()
    cls = "fresh"
    if lines and (m := _CLASS_HEADER.match(lines[0])):
        cls = m.group(1).lower()
        if cls not in REQUEST_CLASSES:
            raise CoderError(f"{path}:1: class must be one of {', '.join(REQUEST_CLASSES)}, not {cls!r}")
        text = "\n".join(lines[1:])
    if not text.strip():
        raise CoderError(f"{path}:1: empty prompt")
    return Workload(path.stem, cls, [{"role": "user", "content": text}], source=str(path))


def _load_jsonl(path: Path) -> list[Workload]:
    out: list[Workload] = []
    for lineno, line in enumerate(_read(path).splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        obj = inputs.parse_json(line, where)
        if not isinstance(obj, dict):
            raise CoderError(f"{where}: each line must be a JSON object")
        out.append(_from_record(obj, where, path.parent))
    if not out:
        raise CoderError(f"{path}:1: no prompts in this file")
    return out


def _from_record(obj: dict[str, Any], where: str, base: Path) -> Workload:
    known = {"name", "messages", "prompt", "class", "file", "lines"}
    if unknown := set(obj) - known:
        raise CoderError(f"{where}: unknown key(s) {one_line(', '.join(sorted(unknown)))} "
                         f"(allowed: {', '.join(sorted(known))})")
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CoderError(f"{where}: \"name\" must be a non-empty string")
    cls = obj.get("class", "fresh")
    if cls not in REQUEST_CLASSES:
        raise CoderError(f"{where}: \"class\" must be one of {', '.join(REQUEST_CLASSES)}, not {cls!r}")
    has_messages, has_prompt = "messages" in obj, "prompt" in obj
    if has_messages == has_prompt:
        raise CoderError(f"{where}: give exactly one of \"messages\" or \"prompt\"")
    file = obj.get("file")
    if file is not None and not isinstance(file, str):
        raise CoderError(f"{where}: \"file\" must be a path string")
    if has_messages:
        messages = _check_messages(obj["messages"], where)
        return Workload(name, cls, messages, file=file, source=where)
    prompt = obj["prompt"]
    if not isinstance(prompt, str) or not prompt.strip():
        raise CoderError(f"{where}: \"prompt\" must be a non-empty string")
    if file is None or cls == "fresh":
        if "lines" in obj:
            raise CoderError(f"{where}: \"lines\" needs \"file\" and class region")
        return Workload(name, cls, [{"role": "user", "content": prompt}], file=file, source=where)
    return _file_workload(obj, where, base, name, cls, file, prompt)


def _file_workload(obj: dict[str, Any], where: str, base: Path, name: str, cls: str, file: str,
                   prompt: str) -> Workload:
    """A full or region workload built from a file the record names (confined to the prompts dir or repo)."""
    src = inputs.confine(base / Path(file).expanduser(), inputs.allowed_roots(base), where)
    if not src.exists():
        raise CoderError(f"{where}: file not found: {src}")
    text = _read(src)
    if cls == "full":
        if "lines" in obj:
            raise CoderError(f"{where}: \"lines\" only applies to class region")
        msgs = build_messages(file, text, prompt, mode="full").messages
        return Workload(name, cls, msgs, file=file, source=where)
    lines = text.splitlines(keepends=True)
    span = obj.get("lines")
    if span is None:
        a, b = _pick_region(lines)
    elif (isinstance(span, list) and len(span) == 2 and all(isinstance(v, int) for v in span)
          and 1 <= span[0] <= span[1] <= len(lines)):
        a, b = span[0] - 1, span[1]
    else:
        raise CoderError(f"{where}: \"lines\" must be [first, last] within 1..{len(lines)}")
    msgs = build_messages(file, "".join(lines[a:b]), prompt, mode="region",
                          before="".join(lines[max(0, a - 3):a]), after="".join(lines[b:b + 3]),
                          region_label=f"lines {a + 1}-{b}").messages
    return Workload(name, cls, msgs, file=file, source=where)


def _check_messages(raw: Any, where: str) -> list[dict[str, str]]:
    if not isinstance(raw, list) or not raw:
        raise CoderError(f"{where}: \"messages\" must be a non-empty list")
    out: list[dict[str, str]] = []
    for i, msg in enumerate(raw):
        if (not isinstance(msg, dict) or msg.get("role") not in ("system", "user", "assistant")
                or not isinstance(msg.get("content"), str)):
            raise CoderError(f"{where}: messages[{i}] must be {{\"role\": system|user|assistant, "
                             "\"content\": string}")
        out.append({"role": msg["role"], "content": msg["content"]})
    return out
