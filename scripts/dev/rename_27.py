#!/usr/bin/env python3
"""One-off migration: names that say what they hold (run once on main, then delete this file).

What it does, by pattern (never by line number), on whatever the tree holds when it runs:

1. ``coder/backends/build/`` -> ``coder/backends/toolchain/`` (the standard .gitignore ignores ``build/``);
2. ``coder/ui/widgets/spec/`` -> ``coder/ui/widgets/speculation/``;
3. ``coder/edit/model.py`` (edit records) -> ``coder/edit/proposal.py``;
4. identifiers named ``session`` that hold a ``Conversation`` -> ``conversation`` (and ``session`` holding a
   ``BackendHandle`` in two tests -> ``handle``); EditSession, the ``session/`` package, CLI flags and the
   on-disk ``sessions/`` folder keep their names;
5. the three warm-ups: the bench's discarded first request becomes the *priming request*, the k
   controller's first rungs its *burn-in*; ``edit/warmup`` (prompt-cache warm-up) keeps its name;
6. the generic ``AnchoredEdit`` / ``apply_edits`` leave ``draft_cap_patch.py`` for ``toolchain/anchored.py``.

Every step first checks its anchors on the whole tree in memory; if one is gone (and the new name is not
there either), it stops before changing anything (``--skip-missing`` applies the rest and lists what it
skipped). A second run finds everything done and changes nothing. Afterwards it sorts the imports of
the files it touched with ruff and prints the leftovers worth a look.

    .venv/bin/python scripts/dev/rename_27.py --check   # what would change; writes nothing
    .venv/bin/python scripts/dev/rename_27.py           # git mv + rewrite, then ruff --fix (imports)
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import shutil
import subprocess
import sys
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()

MOVES = (
    ("coder/backends/build", "coder/backends/toolchain"),
    ("coder/ui/widgets/spec", "coder/ui/widgets/speculation"),
    ("coder/edit/model.py", "coder/edit/proposal.py"),
)
# (pattern, replacement, already-done marker or None when the form may be absent): every tracked text file
PATH_RULES = (
    (r"coder\.backends\.build\b", "coder.backends.toolchain", "coder.backends.toolchain"),
    (r"backends/build\b", "backends/toolchain", "backends/toolchain"),
    (r"coder\.ui\.widgets\.spec\b", "coder.ui.widgets.speculation", "coder.ui.widgets.speculation"),
    (r"widgets/spec\b", "widgets/speculation", None),
    (r"coder\.edit\.model\b", "coder.edit.proposal", "coder.edit.proposal"),
    (r"edit/model\.py\b", "edit/proposal.py", None),
)
# callers of the bench's priming that other changes may have added anywhere (may match nothing)
CALLER_RULES = (
    (r"(\bSettings\([^()]*?)\bwarmup=", r"\1priming="),
    (r"\[\s*\"warmup\"\s*\]", '["priming"]'),
    (r"\.warm_up\(\)", ".prime()"),
)
# recorded data and snapshots are what a program printed once: paths inside them are history
FROZEN = ("tests/data/",)
MAX_LINE = 120  # ruff's line-length

DRAFT_CAP = "coder/backends/toolchain/draft_cap_patch.py"
ANCHORED = "coder/backends/toolchain/anchored.py"
ANCHORED_NAMES = ("AnchoredEdit", "apply_edits")
ANCHORED_DOC = '''"""Anchored source edits: the one way coder's llama.cpp patches change a source tree.

An edit inserts its text right after (or in place of) an anchor that must occur exactly once, so a
moved llama.cpp source fails the build loudly instead of patching the wrong place. Every patch module
(``*_patch.py``) lists its edits as :class:`AnchoredEdit` and applies them with :func:`apply_edits`;
the build key hashes the edits' fields, never this module's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.errors import CoderError

'''
TOOLCHAIN_INIT = ("coder/backends/toolchain/__init__.py", '"""build"""\n',
                  '"""Making and proving a llama-server binary: the pinned source, coder\'s anchored source patches, '
                  'the CPU\nconfiguration chain, the build cache and the smoke test."""\n')


@dataclass(frozen=True)
class Names:
    """Rename NAME tokens of Python files (never inside strings or comments, never in ``coder.x`` paths).

    ``anchor`` finds the file again when another change moved it; ``strings`` renames whole string
    tokens (dict keys). Names inside one-line f-string fields are renamed too.
    """

    path: str
    mapping: dict[str, str]
    anchor: str
    strings: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Text:
    """Replace every occurrence of ``old`` by ``new`` in one file (found again by ``anchor`` if moved)."""

    path: str
    old: str
    new: str
    regex: bool = False  # then only in ``path`` itself


CONV = {"session": "conversation"}
NAMES = (
    # 4. a Conversation called session
    Names("coder/ui/run.py", CONV, "conversations.load_last(root)"),
    Names("coder/ui/app.py", CONV, "session: conversations.Conversation"),
    Names("coder/ui/screens/main.py", CONV, "self.edit.session"),
    Names("coder/session/streams.py", CONV, "def chat_messages("),
    Names("coder/session/slash.py", CONV, "session: conversations.Conversation"),
    Names("coder/session/edit_session.py", CONV, "session: conversations.Conversation"),
    Names("coder/conversations.py", CONV, "def conversation_path("),
    Names("tests/ui/test_ui_app.py", CONV, "app.session."),
    Names("tests/unit/test_session.py", CONV, "edit.session."),
    Names("tests/server/test_ui_server.py", CONV, "app.session."),
    # a BackendHandle called session
    Names("tests/server/test_kpolicy_server.py", {"session": "handle"}, "session = BackendHandle("),
    Names("tests/unit/test_kpolicy_policy.py", {"session": "handle"}, "session = BackendHandle("),
    # 5a. the bench's discarded first request: the priming request
    Names("coder/bench/runner.py", {"WARMUP": "PRIMING", "warm_up": "prime", "warmed": "primed", "warmup": "priming"},
          "def warm_up("),
    Names("coder/bench/records.py", {"warmup": "priming"}, "warmup: list[RequestRecord]",
          strings={'"warmup"': '"priming"'}),
    Names("coder/bench/schema.py", {"warmup": "priming"}, "warmup: list[dict[str, object]]"),
    Names("tests/server/test_bench_server.py", {"warmup": "priming"}, 'single["warmup"]',
          strings={'"warmup"': '"priming"'}),
    # 5b. the k controller's first rungs: its burn-in (bench_k's rounds before measuring are that too)
    Names("scripts/bench_k.py", {"warmup": "burn_in"}, "def bench_config("),
)
TEXTS = (
    # 4. prose and messages about a saved conversation (the on-disk folder keeps its name)
    Text("coder/conversations.py", '"""Where this repository\'s sessions live."""',
         '"""Where this repository\'s conversations live (``sessions/``: the folder keeps its first name)."""'),
    Text("coder/conversations.py", '"""An empty session for the repository."""',
         '"""An empty conversation for the repository."""'),
    Text("coder/conversations.py", '"""The file a session is saved to."""',
         '"""The file a conversation is saved to."""'),
    Text("coder/conversations.py", '"""Write the session with', '"""Write the conversation with'),
    Text("coder/conversations.py", '"""Read one session file;', '"""Read one conversation file;'),
    Text("coder/conversations.py", 'f"session {path.name} is unreadable', 'f"conversation {path.name} is unreadable'),
    Text("coder/conversations.py", '"""Saved sessions of this repository', '"""Saved conversations of this repository'),
    Text("coder/conversations.py", '"""The last saved session of the repository',
         '"""The last saved conversation of the repository'),
    Text("coder/ui/run.py", "load config and session, run the TUI", "load config and the conversation, run the TUI"),
    Text("coder/ui/run.py", "no earlier session in this repository", "no earlier conversation in this repository"),
    Text("coder/ui/screens/main.py", 'f"Resumed session {', 'f"Resumed conversation {'),
    Text("coder/ui/screens/main.py", "for a resumed session's files", "for a resumed conversation's files"),
    Text("tests/ui/test_ui_app.py", 'f"Resumed session {', 'f"Resumed conversation {'),
    Text("coder/session/edit_session.py", '"""Persist the session (', '"""Persist the conversation ('),
    Text("coder/session/edit_session.py", 'f"Could not save the session: ', 'f"Could not save the conversation: '),
    Text("coder/session/edit_session.py", "(a resumed session; call from a worker)",
         "(a resumed conversation; call from a worker)"),
    Text("coder/cli/main.py", "continue this repository's last session",
         "continue this repository's last conversation"),
    # 5a. priming request
    Text("coder/bench/runner.py", 'Workload("warm-up",', 'Workload("priming",'),
    Text("coder/bench/runner.py", 'self.progress.step("warm-up")', 'self.progress.step("priming request")'),
    Text("coder/bench/runner.py", "reuse it so warm-up happens once per server",
         "reuse it so priming happens once per server"),
    Text("coder/bench/runner.py", "a full-size warm-up would cost", "a full-size priming request would cost"),
    Text("coder/bench/sweep.py", "warm-ups and restarts add a few", "priming requests and restarts add a few"),
    Text("coder/cli/bench.py", "N repetitions, warm-up excluded,", "N repetitions, priming request excluded,"),
    Text("tests/server/test_bench_server.py", "# one untimed warm-up per server",
         "# one untimed priming request per server"),
    # 5b. burn-in
    Text("coder/kpolicy/controller.py", '"""Warm-up rungs:', '"""Burn-in rungs:'),
    Text("coder/kpolicy/controller.py", "A class with a start depth warms up at it and its half only",
         "A class with a start depth burns in at it and its half only"),
    Text("coder/kpolicy/controller.py", 'f"warm-up {i + 1}/{len(ladder)}', 'f"burn-in {i + 1}/{len(ladder)}'),
    Text("tests/unit/test_kpolicy_policy.py", '"warm-up" in first.reason', '"burn-in" in first.reason'),
    Text("scripts/bench_k.py", "(coder.kpolicy.controller) after a warm-up, probes included",
         "(coder.kpolicy.controller) after its burn-in, probes included"),
    Text("scripts/bench_k.py", "warm the controller up, then rounds", "burn the controller in, then rounds"),
    Text("docs/measuring.md", "the k controller's warm-up tries", "the k controller's burn-in tries"),
    # the lab scripts' discarded first requests are priming requests too
    Text("scripts/bench_cpu_builds.py", '"temperature": 0})  # warm-up', '"temperature": 0})  # priming request'),
    Text("scripts/gpu/bench_gpu_smoke.py", "continue  # warm-up", "continue  # the priming request"),
    Text("scripts/gpu/amx_ab.sh", "# the first is a warm-up", "# the first is a priming request"),
    # the same width as "warm-up": the reason line of the panel snapshots keeps its layout
    Text("tests/ui/__snapshots__/test_ui_snapshots/test_main_screen_after_streamed_reply.svg",
         r"warm-up&#160;(\d+)/", r"burn-in&#160;\1/", regex=True),
    Text("tests/ui/__snapshots__/test_ui_snapshots/test_panel_splits_drafts_of_a_chained_reply.svg",
         r"warm-up&#160;(\d+)/", r"burn-in&#160;\1/", regex=True),
    # 1. and 6. the folder's own words
    Text("tests/unit/test_architecture.py", 'f"build/ imported by', 'f"toolchain/ used by'),  # same width
    Text("docs/architecture.md", "by lifecycle. `build/` makes and proves",
         "by lifecycle. `toolchain/` makes and proves"),
    Text("docs/architecture.md", "coder's anchored source patches, CPU features",
         "coder's anchored source patches (one `AnchoredEdit` type, `anchored.py`), CPU features"),
)


class Tree:
    """The tracked text files as they will read after the moves, edited in memory until ``write``."""

    def __init__(self) -> None:
        self.moves: list[tuple[str, str]] = []
        self.done: list[str] = []
        self.errors: list[str] = []
        self.files: dict[str, str] = {}
        self.origin: dict[str, str] = {}  # new path -> the path it is read from now
        self.new: set[str] = set()
        self.changes: dict[str, list[str]] = {}

    def load(self) -> None:
        """Plan the moves, then read every tracked text file under its future path."""
        for src, dst in MOVES:
            if (ROOT / src).exists() and not (ROOT / dst).exists():
                self.moves.append((src, dst))
            elif (ROOT / dst).exists() and not (ROOT / src).exists():
                self.done.append(f"move {src} -> {dst}: done already")
            elif (ROOT / dst).exists():
                self.errors.append(f"move {src} -> {dst}: both exist (merge them by hand)")
            else:
                self.errors.append(f"move {src} -> {dst}: neither exists")
        for rel in git("ls-files").splitlines():
            if rel == SELF or not (ROOT / rel).is_file():
                continue
            try:
                text = (ROOT / rel).read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            new = rel
            for src, dst in self.moves:
                if rel == src or rel.startswith(src + "/"):
                    new = dst + rel[len(src):]
            self.files[new], self.origin[new] = text, rel

    def edit(self, path: str, text: str, what: str) -> None:
        """Record a new text for ``path`` (and what changed, for the report)."""
        if text != self.files.get(path):
            self.files[path] = text
            self.changes.setdefault(path, []).append(what)

    def locate(self, path: str, anchor: str, done_anchor: str | None = None) -> str | None:
        """``path`` if it holds ``anchor`` (or ``done_anchor``), else the one file that does (it moved)."""
        for needle in (anchor, done_anchor):
            if needle is None:
                continue
            if needle in self.files.get(path, ""):
                return path
            hits = [p for p, t in self.files.items() if needle in t and p.endswith(Path(path).suffix)
                    and not p.startswith(FROZEN)]
            if len(hits) == 1:
                self.done.append(f"{path}: moved, found at {hits[0]}")
                return hits[0]
        return None

    def write(self) -> None:
        """git mv, then write every changed or new file; new files are added to the index."""
        for src, dst in self.moves:
            git("mv", src, dst)
            leftover = ROOT / src
            if leftover.is_dir() and all(p.name == "__pycache__" or p.suffix == ".pyc" for p in leftover.rglob("*")):
                shutil.rmtree(leftover)  # only bytecode left: it would make the old package importable
        for path in self.changes:
            (ROOT / path).write_text(self.files[path], encoding="utf-8")
        for path in sorted(self.new):
            git("add", path)


def git(*args: str) -> str:
    """Run git in the repository root; its stdout."""
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


# ---------------------------------------------------------------- the steps

def path_rules(tree: Tree) -> None:
    """Steps 1-3: module paths and file paths everywhere (code, tests, docs, scripts, config)."""
    for pattern, repl, marker in PATH_RULES:
        rx, hits = re.compile(pattern), 0
        for path, text in list(tree.files.items()):
            if path.startswith(FROZEN):
                continue
            new, n = rx.subn(repl, text)
            if n:
                hits += n
                tree.edit(path, new, f"{pattern} -> {repl} ({n}x)")
        if not hits and marker is not None and not any(marker in t for t in tree.files.values()):
            tree.errors.append(f"path rule {pattern}: matched nothing and {marker} is nowhere")
    init_path, old, new = TOOLCHAIN_INIT
    if tree.files.get(init_path) == old:
        tree.edit(init_path, new, "package docstring")


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


def _in_coder_path(toks: list[tokenize.TokenInfo], i: int) -> bool:
    """Whether NAME ``toks[i]`` is part of a dotted path that starts with ``coder`` (a module, not a name)."""
    j = i
    while j >= 2 and toks[j - 1].string == "." and toks[j - 2].type == tokenize.NAME:
        j -= 2
    return j != i and toks[j].string == "coder"


def _fstring_sub(token: str, mapping: dict[str, str]) -> str:
    """Rename names inside the ``{...}`` fields of one f-string token."""
    prefix = re.match(r"[A-Za-z]*", token)
    if prefix is None or "f" not in prefix.group().lower():
        return token

    def field_sub(m: re.Match[str]) -> str:
        body = m.group(1)
        for old, new in mapping.items():
            body = re.sub(rf"(?<!coder\.)(?<!\w){re.escape(old)}\b", new, body)
        return "{" + body + "}"

    return re.sub(r"(?<!\{)\{([^{}]*)\}", field_sub, token)


def rename_names(text: str, mapping: dict[str, str], strings: dict[str, str]) -> tuple[str, int, list[str]]:
    """``text`` with the NAME (and whole-string) tokens of ``mapping``/``strings`` renamed.

    Returns the new text, the count, and the names that would collide (already in use as a bare name).
    """
    toks = _tokens(text)
    targets = set(mapping.values())
    clashes = sorted({t.string for i, t in enumerate(toks) if t.type == tokenize.NAME and t.string in targets
                      and toks[i - 1].string != "." and t.string not in mapping})
    if not any(t.type == tokenize.NAME and t.string in mapping and not _in_coder_path(toks, i)
               for i, t in enumerate(toks)):
        clashes = []  # nothing left to rename (a second run): the new names are ours
    lines = text.splitlines(keepends=True)
    edits: list[tuple[int, int, int, str]] = []  # row, col start, col end, replacement
    for i, tok in enumerate(toks):
        new = None
        if tok.type == tokenize.NAME and tok.string in mapping and not _in_coder_path(toks, i):
            new = mapping[tok.string]
        elif tok.type == tokenize.STRING and tok.string in strings:
            new = strings[tok.string]
        elif tok.type == tokenize.STRING and tok.start[0] == tok.end[0]:
            sub = _fstring_sub(tok.string, mapping)
            new = sub if sub != tok.string else None
        if new is not None:
            edits.append((tok.start[0], tok.start[1], tok.end[1], new))
    for row, c0, c1, new in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:c0] + new + line[c1:]
    return "".join(lines), len(edits), clashes


def names(tree: Tree) -> None:
    """Steps 4 and 5: identifiers, by tokens, in the files where the old name has the one meaning."""
    for rule in NAMES:
        done_anchor = rule.anchor
        for old, new in rule.mapping.items():
            done_anchor = re.sub(rf"\b{old}\b", new, done_anchor)
        path = tree.locate(rule.path, rule.anchor, done_anchor)
        if path is None:
            tree.errors.append(f"{rule.path}: anchor {rule.anchor!r} is gone (and so is {done_anchor!r})")
            continue
        new_text, n, clashes = rename_names(tree.files[path], rule.mapping, rule.strings)
        if clashes:
            tree.errors.append(f"{path}: {clashes} already name something else there; rename by hand")
            continue
        if n:
            tree.edit(path, new_text, f"names {rule.mapping} ({n}x)")
        else:
            tree.done.append(f"{path}: names {rule.mapping} done already")


def texts(tree: Tree) -> None:
    """Steps 4 and 5: messages, docstrings and docs, one exact text each."""
    for rule in TEXTS:
        path = rule.path if rule.regex and rule.path in tree.files else tree.locate(rule.path, rule.old, rule.new)
        text = tree.files.get(path or "", "")
        if path is None:
            tree.errors.append(f"{rule.path}: text {rule.old!r} is gone (and {rule.new!r} is not there)")
            continue
        if rule.regex:
            new, n = re.subn(rule.old, rule.new, text)
        else:
            n = text.count(rule.old)
            new = text.replace(rule.old, rule.new)
        if n:
            tree.edit(path, new, f"text {rule.old!r} ({n}x)")
        else:
            tree.done.append(f"{path}: text {rule.new!r} there already")


def anchored(tree: Tree) -> None:
    """Step 6: AnchoredEdit and apply_edits get their own module; every importer follows."""
    source = tree.files.get(DRAFT_CAP)
    if source is None:
        tree.errors.append(f"{DRAFT_CAP} is gone")
        return
    module = ast.parse(source)
    nodes = [n for n in module.body if isinstance(n, ast.ClassDef | ast.FunctionDef) and n.name in ANCHORED_NAMES]
    if not nodes:
        if ANCHORED in tree.files:
            tree.done.append(f"{ANCHORED}: there already")
        else:
            tree.errors.append(f"{DRAFT_CAP}: neither AnchoredEdit nor apply_edits is defined there, and no {ANCHORED}")
        return
    if ANCHORED in tree.files:
        tree.errors.append(f"{ANCHORED} exists, but {DRAFT_CAP} still defines {[n.name for n in nodes]}")
        return
    lines = source.splitlines(keepends=True)
    pieces, cut = [], set()
    for node in nodes:
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        pieces.append("".join(lines[first - 1:end]))
        cut.update(range(first - 1, end))
        while first - 2 >= 0 and not lines[first - 2].strip():  # the blank lines above it go too
            first -= 1
            cut.add(first - 1)
    kept = [line for i, line in enumerate(lines) if i not in cut]
    imports = [n for n in ast.parse("".join(kept)).body if isinstance(n, ast.Import | ast.ImportFrom)]
    last_import = max((n.end_lineno or n.lineno) for n in imports)  # 1-based: insert after it
    kept.insert(last_import, f"from coder.backends.toolchain.anchored import {', '.join(ANCHORED_NAMES)}\n")
    tree.edit(DRAFT_CAP, "".join(kept), "AnchoredEdit, apply_edits moved out")
    tree.files[ANCHORED] = ANCHORED_DOC + "\n" + "\n\n".join(p.rstrip("\n") + "\n" for p in pieces)
    tree.changes[ANCHORED] = ["new module"]
    tree.new.add(ANCHORED)
    _anchored_importers(tree)


def _anchored_importers(tree: Tree) -> None:
    """Every ``from ...draft_cap_patch import AnchoredEdit, ...`` imports the moved names from ``anchored``."""
    importer = re.compile(r"^from coder\.backends\.(?:build|toolchain)\.draft_cap_patch import "
                          r"(\(([^)]*)\)|([^\n]*))$", re.M)

    def split(m: re.Match[str]) -> str:
        imported = [n.strip() for n in (m.group(2) or m.group(3)).split("#")[0].split(",") if n.strip()]
        moved = [n for n in imported if n in ANCHORED_NAMES]
        if not moved:
            return m.group(0)
        rest = [n for n in imported if n not in ANCHORED_NAMES]
        out = f"from coder.backends.toolchain.anchored import {', '.join(moved)}"
        if rest:
            out += f"\nfrom coder.backends.toolchain.draft_cap_patch import {', '.join(rest)}"
        return out

    for path, text in list(tree.files.items()):
        if path.endswith(".py") and path != DRAFT_CAP:
            new = importer.sub(split, text)
            if new != text:
                tree.edit(path, new, "imports AnchoredEdit/apply_edits from toolchain.anchored")
            if re.search(r"draft_cap_patch\.(AnchoredEdit|apply_edits)\b", new):
                tree.errors.append(f"{path}: uses draft_cap_patch.AnchoredEdit/apply_edits as attributes; "
         "import them from coder.backends.toolchain.anchored by hand")


def _cuts(text: str) -> dict[int, tuple[int, int]]:
    """Per row: the last comma inside brackets that fits the limit, and the column its continuation aligns to."""
    cuts: dict[int, tuple[int, int]] = {}
    opened: list[tuple[int, int]] = []  # (row, col) of each open bracket
    lines = text.splitlines()
    for tok in _tokens(text):
        if tok.type != tokenize.OP:
            continue
        if tok.string in "([{":
            opened.append(tok.start)
        elif tok.string in ")]}" and opened:
            opened.pop()
        elif tok.string == "," and opened and tok.start[1] < MAX_LINE - 1:
            row, col = tok.start
            line = lines[row - 1]
            align = opened[-1][1] + 1 if opened[-1][0] == row else len(line) - len(line.lstrip())
            cuts[row] = (col, align)
    return cuts


def wrap_long_lines(tree: Tree) -> None:
    """Lines that a rename pushed past the line limit, cut after a comma (reported when that cannot be done)."""
    for path in [p for p in tree.changes if p.endswith(".py") and p in tree.origin]:
        before = set((ROOT / tree.origin[path]).read_text(encoding="utf-8").splitlines())
        text = tree.files[path]
        cuts = _cuts(text)
        out: list[str] = []
        lines = text.splitlines(keepends=True)
        for row, line in enumerate(lines, start=1):
            body = line.rstrip("\n")
            if len(body) <= MAX_LINE or body in before:
                out.append(line)
            elif row in cuts and line[cuts[row][0] + 1:].strip():
                col, align = cuts[row]
                rest = " " * align + line[col + 1:].strip()
                after = lines[row] if row < len(lines) else ""
                joined = rest + " " + after.strip()
                if after.startswith(" " * align) and not after[align].isspace() and len(joined) <= MAX_LINE \
                        and not rest.endswith(("(", "[", "{")) and "#" not in rest:
                    lines[row] = joined + "\n"  # the cut-off tail joins the next line of the same bracket
                    out.append(line[:col + 1] + "\n")
                else:
                    out += [line[:col + 1] + "\n", rest + "\n"]
            else:
                out.append(line)
                tree.errors.append(f"{path}:{row}: a renamed line is longer than {MAX_LINE}: wrap it by hand")
        tree.edit(path, "".join(out), "long lines wrapped")


def callers(tree: Tree) -> None:
    """Step 5: uses of the bench's priming outside the files named above (new tests, a new runner)."""
    for pattern, repl in CALLER_RULES:
        rx = re.compile(pattern)
        for path, text in list(tree.files.items()):
            if path.endswith(".py") and not path.startswith(FROZEN):
                new, n = rx.subn(repl, text)
                if n:
                    tree.edit(path, new, f"{pattern} -> {repl} ({n}x)")


STEPS: tuple[Callable[[Tree], None], ...] = (path_rules, anchored, names, texts, callers, wrap_long_lines)


# ---------------------------------------------------------------- afterwards

def ruff_fix(paths: list[str]) -> None:
    """Sort the imports the renames moved; drop the imports draft_cap_patch no longer uses; show what is left."""
    ruff = [sys.executable, "-m", "ruff"] if shutil.which("ruff") is None else ["ruff"]
    py = [p for p in paths if p.endswith(".py") and (ROOT / p).exists()]
    if not py:
        return
    subprocess.run([*ruff, "check", "--quiet", "--select", "I001", "--fix", *py], cwd=ROOT, check=False)
    own = [p for p in (DRAFT_CAP, ANCHORED) if p in py]
    if own:
        subprocess.run([*ruff, "check", "--quiet", "--select", "F401", "--fix", *own], cwd=ROOT, check=False)
    res = subprocess.run([*ruff, "check", *py], cwd=ROOT, check=False, capture_output=True, text=True)
    if res.returncode:
        print("ruff still reports (fix by hand):\n" + res.stdout)


def leftovers() -> None:
    """What a reviewer should look at: old paths anywhere, and the remaining bare names."""
    print("\n== leftovers (review) ==")
    grep = subprocess.run(["git", "grep", "-nE", r"backends[./]build\b|widgets[./]spec\b|edit[./]model\b|"
                           r"draft_cap_patch import .*(AnchoredEdit|apply_edits)", "--", ".", f":!{SELF}",
         ":!tests/data"], cwd=ROOT, capture_output=True, text=True, check=False)
    print("old module paths:", grep.stdout.strip() or "none")
    for rel in git("ls-files", "coder", "tests", "scripts").splitlines():
        if not rel.endswith(".py") or rel == SELF or not (ROOT / rel).is_file():
            continue
        text = (ROOT / rel).read_text(encoding="utf-8")
        toks = _tokens(text)
        for i, tok in enumerate(toks):
            if tok.type == tokenize.NAME and tok.string in {"session", "warmup", "warm_up", "WARMUP"} \
                    and not _in_coder_path(toks, i):
                print(f"name {tok.string}: {rel}:{tok.start[0]}: {tok.line.strip()[:100]}")


def main() -> int:
    """Plan everything in memory; stop on a missing anchor; else move, rewrite, fix imports, report."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="report what would change; write nothing")
    parser.add_argument("--skip-missing", action="store_true", help="apply the rest when an anchor is gone")
    args = parser.parse_args()
    if git("status", "--porcelain", "--untracked-files=no").strip() and not args.check:
        print("rename_27: the work tree has uncommitted changes; commit or stash them first", file=sys.stderr)
        return 2
    tree = Tree()
    tree.load()
    for step in STEPS:
        step(tree)
    for src, dst in tree.moves:
        print(f"git mv {src} {dst}")
    for path, what in sorted(tree.changes.items()):
        origin = tree.origin.get(path, "new")
        print(f"{path}" + (f" (from {origin})" if origin != path else "") + ": " + "; ".join(what))
    for line in tree.done:
        print(f"ok: {line}")
    for line in tree.errors:
        print(f"ERROR: {line}", file=sys.stderr)
    if not tree.moves and not tree.changes:
        print("rename_27: nothing to change")
    if tree.errors and not args.skip_missing:
        print(f"rename_27: {len(tree.errors)} anchor(s) gone: nothing written (--skip-missing applies the rest)",
              file=sys.stderr)
        return 1
    if args.check:
        return 1 if tree.errors else 0
    tree.write()
    ruff_fix(sorted(tree.changes))
    leftovers()
    return 1 if tree.errors else 0


if __name__ == "__main__":
    sys.exit(main())
