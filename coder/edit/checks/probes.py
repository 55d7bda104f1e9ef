"""Do several replies to one behaviour change behave alike? Their defs, called on probe inputs, compared.

A bug fix with no failing example or test, or a new method whose meaning only the words give ("is_mixed: True
when the leading whitespace has both tabs and spaces"), has no oracle: nothing mechanical tells the right code
from code that is merely plausible. On the H200 (run 9) three such edits were applied wrong: an ``is_mixed`` that
counted the spaces of the whole line, one true of plain spaces, and an ``indent_level`` fix made in a line that
was not the bug. Where the model is unsure, replies sampled at a temperature say different things, so
:mod:`coder.edit.run.agree` draws a few and asks here whether they behave as the accepted reply does.

The defs compared are the ones any candidate adds or changes, and the ones the reading targets. Their inputs come
from the original file, never from a guess about the instruction: the literals of the def's class or function
(``Whitespace.S = ' '``, ``T = '\\t'``) and short strings over the characters those literals hold with one other
letter (``'\\tx '``), a few small ints, and those of its bytes literals. Each input is kept only where the
original code takes it: the class's constructor must accept it (``Whitespace('\\tx ')``), and a def the original
has must return normally, twice alike (a value that depends on the clock or on chance says nothing). A method
is compared on what it returns and on the attributes its object had in the original afterwards; a function on
what it returns and what became of its arguments. The first input on which two candidates differ is the
disagreement (``Whitespace('\\tx ').is_mixed()``: True / False).

Everything runs in one subprocess, as the behaviour check runs an example (:func:`coder.edit.checks.behaviour.
run_child`: ``-I``, an empty temporary cwd), the original and every candidate loaded side by side as modules, each
call under :data:`CALL_S` and all of them under :data:`BUDGET_S`.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from coder.edit.apply.files import FileSnapshot
from coder.edit.checks.behaviour import PRELUDE, run_child
from coder.textsafe import one_line

CALL_S = 0.25  # one probe call; a right answer to a small question is far quicker
BUDGET_S = 6.0  # every call of every candidate; the comparison stops there with what it has
MAX_PROBES = 400  # calls per def and candidate
MAX_INSTANCES = 40  # constructor inputs the original accepts, per class
_ALPHABET = 4  # characters of short literals used to build strings, the most frequent first
_SHORT = 3  # a literal this short is a character or a few (' \t', '\r\n'), not a word
_PATHS = "/\\~:"  # characters no probe string holds (a path out of the working folder)
_OTHER = "x"  # one letter no literal needs to hold: a line's text after its indentation
_INTS = (0, 1, 2, 3, 4, 8)
# A def that reaches these is never called on made-up inputs: it may touch files, processes or the network, and
# a probe string is no place to name a path. Modules by their top name, and builtins called by name.
_WORLD = frozenset({"os", "shutil", "subprocess", "socket", "pathlib", "tempfile", "urllib", "http", "signal", "sys",
                    "threading", "multiprocessing", "ctypes", "io", "glob", "select", "asyncio", "sqlite3", "ftplib",
                    "smtplib", "webbrowser", "importlib", "builtins"})
_CALLS = frozenset({"open", "exec", "eval", "__import__", "compile", "input", "breakpoint", "exit", "quit",
                    "setattr", "delattr", "globals"})
_SHOWN = 60

# The child: reads {"sources": [original, candidate...], "targets": [...], "timeout", "budget"} (and run_child's
# keys); writes {"compared": n} or {"compared": n, "call": shown, "answers": [per candidate]}, or {"load": i} when
# source i does not load. A target: {"cls", "meth" (None: the constructor alone), "ctor": [[literal...]...],
# "args": [[literal...]...], "new": the original lacks the def}.
_CHILD = PRELUDE + r"""
ADDR = re.compile(r" at 0x[0-9a-fA-F]+")
def shown(v):
    if hasattr(v, "__next__") and hasattr(v, "__iter__"):
        v = ("yields", list(itertools.islice(v, 50)))
    return ADDR.sub("", repr(v))[:300]
def run(fn):
    signal.setitimer(signal.ITIMER_REAL, data["timeout"])
    try:
        return ["ok", *map(shown, fn())]
    except _Late:
        return ["timeout", ""]
    except BaseException as exc:
        return ["raised", type(exc).__name__]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
mods = []
for i, source in enumerate(data["sources"]):
    mod = types.ModuleType(data["name"] + str(i))
    mod.__file__, mod.__package__ = data["path"], data["package"]
    sys.modules[mod.__name__] = mod
    if run(lambda: (exec(compile(source, data["path"], "exec"), mod.__dict__), None))[0] != "ok":
        out.write(json.dumps({"load": i}))
        sys.exit(0)
    mods.append(mod)
values = lambda items: [ast.literal_eval(x) for x in items]
def state(o, keys):
    d = getattr(o, "__dict__", {})
    return {k: d.get(k) for k in keys}
def call(mod, t, cargs, margs, keys):
    def fn():
        a = values(margs)
        if t["cls"] is None:
            return getattr(mod, t["meth"])(*a), a
        o = getattr(mod, t["cls"])(*values(cargs))
        if t["meth"] is None:
            return None, state(o, keys)
        return getattr(o, t["meth"])(*a), state(o, keys)
    return run(fn)
def keys_of(cargs):
    got = []
    def fn():
        got.extend(sorted(getattr(getattr(mods[0], t["cls"])(*values(cargs)), "__dict__", {})))
        return None, None
    return got if run(fn)[0] == "ok" else None
def show(t, cargs, margs):
    args = ", ".join(margs)
    if t["cls"] is None:
        return f"{t['meth']}({args})"
    made = f"{t['cls']}({', '.join(cargs)})"
    return made if t["meth"] is None else f"{made}.{t['meth']}({args})"
end, compared = time.monotonic() + data["budget"], 0
def told(extra):
    out.write(json.dumps({"compared": compared, **extra}))
    sys.exit(0)
for t in data["targets"]:
    ctors = [([], [])]
    if t["cls"] is not None:
        ctors = []
        for cargs in t["ctor"]:
            if time.monotonic() > end or len(ctors) >= data["instances"]:
                break
            if (keys := keys_of(cargs)) is not None:
                ctors.append((cargs, keys))
    ref = mods[1] if t["new"] else mods[0]  # what says an input fits: the original's def, else the reply's
    most = max(1, data["probes"] // max(1, len(ctors)))
    fits = [m for m in t["args"] if time.monotonic() < end
            and any(call(ref, t, c, m, k)[0] == "ok" for c, k in ctors[:3])][:most]
    for cargs, keys, margs in [(c, k, m) for (c, k) in ctors for m in fits]:
        if time.monotonic() > end:
            told({})
        if not t["new"]:
            first = call(mods[0], t, cargs, margs, keys)
            if first[0] != "ok" or call(mods[0], t, cargs, margs, keys) != first:
                continue
        answers = [call(m, t, cargs, margs, keys) for m in mods[1:]]
        if any(a == ["raised", "TypeError"] for a in answers) or answers[0] != call(mods[1], t, cargs, margs, keys):
            continue
        compared += 1
        if any(a != answers[0] for a in answers):
            part = 2 if all(a[:2] == answers[0][:2] for a in answers) else 1  # the returns, or else what changed
            said = [a[part] if a[0] == "ok" else " ".join(a) for a in answers]
            told({"call": show(t, cargs, margs), "answers": said})
told({})
"""


@dataclass(frozen=True)
class Target:
    """A def to call: ``cls.meth`` (``meth`` None: the constructor alone) or the module's function ``meth``."""

    cls: str | None
    meth: str | None
    new: bool  # the original file lacks it: nothing filters its inputs but the constructor


@dataclass(frozen=True)
class Disagreement:
    """What the probes found: the first call on which the candidates differ (None: none), and how many agreed."""

    compared: int
    call: str | None = None
    answers: tuple[str, ...] = ()

    def line(self) -> str:
        """``the model's answers disagree on Whitespace('\\t').is_mixed(): the reply gives False, a sampled
        reply True`` (the first candidate is the reply, the first that differs from it is quoted)."""
        reply = self.answers[0] if self.answers else ""
        other = next((a for a in self.answers[1:] if a != reply), "")
        return (f"the model's answers disagree on {self.call}: the reply gives {one_line(reply, _SHOWN)}, "
                f"a sampled reply {one_line(other, _SHOWN)}")


def defs_of(source: str) -> dict[tuple[str | None, str], ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module's functions and its classes' methods by ``(class, name)``; {} when it does not parse."""
    try:
        return defs_of_tree(ast.parse(source))
    except SyntaxError:
        return {}


def defs_of_tree(tree: ast.Module) -> dict[tuple[str | None, str], ast.FunctionDef | ast.AsyncFunctionDef]:
    """:func:`defs_of` of a parsed module."""
    out: dict[tuple[str | None, str], ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out[None, node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    out[node.name, item.name] = item
    return out


def targets(original: str, candidates: Sequence[str], named: Iterable[tuple[str | None, str]] = ()) -> list[Target]:
    """The defs to compare: added or changed by any candidate, or ``named`` (the reading's targets), when every
    candidate has them with the same parameters; plain functions and methods, never async ones."""
    old = defs_of(original)
    news = [defs_of(c) for c in candidates]
    keys = {k for new in news for k, node in new.items() if k not in old or ast.dump(node) != ast.dump(old[k])}
    keys |= {k for k in named if k in old}
    out = []
    for key in sorted(keys, key=lambda k: (k[0] or "", k[1])):
        nodes = [new.get(key) for new in news]
        if any(not isinstance(n, ast.FunctionDef) for n in nodes) or len({ast.dump(n.args) for n in nodes
                                                                          if n is not None}) != 1:
            continue
        cls, name = key
        if name == "__init__" and cls is not None:
            out.append(Target(cls, None, False))
        elif not name.startswith("__") or name in ("__repr__", "__str__", "__len__", "__bool__", "__eq__"):
            out.append(Target(cls, name, key not in old))
    return out


def worldly(tree: ast.Module, nodes: Iterable[ast.AST]) -> bool:
    """Whether ``nodes`` (defs of ``tree``), or a def of ``tree`` they call by name (``f(...)``, ``self.f(...)``),
    and so on, name a module of :data:`_WORLD` or a name imported from one, or call a builtin of :data:`_CALLS`."""
    bound: set[str] = set(_CALLS)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] in _WORLD}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in _WORLD:
            bound |= {a.asname or a.name for a in node.names}
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    todo, seen = list(nodes), set()
    while todo:
        for sub in ast.walk(todo.pop()):
            if isinstance(sub, ast.Name) and sub.id in bound:
                return True
            if isinstance(sub, ast.Call):
                fn = sub.func
                name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
                if name in defs and name not in seen:
                    seen.add(name)
                    todo.append(defs[name])
    return False


def _required(node: ast.FunctionDef | ast.AsyncFunctionDef | None, method: bool) -> int | None:
    """How many positional arguments a call must pass (``self`` not counted); None when keyword-only ones are
    required too, which a probe does not guess."""
    if node is None:
        return 0
    args = node.args
    if any(d is None for d in args.kw_defaults):
        return None
    positional = len(args.posonlyargs) + len(args.args) - len(args.defaults)
    return max(0, positional - (1 if method and not _static(node) else 0))


def _static(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in node.decorator_list)


def pool(nodes: Iterable[ast.AST]) -> list[str]:
    """Probe values (Python literals) from the literals under ``nodes``: strings over their one-letter literals'
    characters and one other letter, the literals themselves, small ints, bytes literals."""
    chars: dict[str, int] = {}
    strings: set[str] = {""}
    ints: set[int] = set(_INTS)
    blobs: set[bytes] = set()
    for node in nodes:
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Constant):
                continue
            value = sub.value
            if isinstance(value, str) and len(value) <= _SHORT:  # ' \t': a class's characters, unpacked
                for char in set(value) - set(_PATHS):
                    chars[char] = chars.get(char, 0) + value.count(char)
            if isinstance(value, str) and len(value) <= 12 and "\n" not in value.rstrip("\n"):
                strings.add(value)
            elif isinstance(value, int) and not isinstance(value, bool) and -8 <= value <= 64:
                ints.add(value)
            elif isinstance(value, bytes) and len(value) <= 12:
                blobs.add(value)
    alphabet = sorted([*sorted(chars, key=lambda c: -chars[c])[:_ALPHABET], _OTHER])
    longest = 3 if len(alphabet) <= 3 else 2
    for n in range(1, longest + 1):
        strings.update("".join(p) for p in itertools.product(alphabet, repeat=n))
    strings = {s for s in strings if not _pathlike(s)}
    return ([repr(s) for s in sorted(strings, key=lambda s: (len(s), s))] + [repr(i) for i in sorted(ints)]
            + [repr(b) for b in sorted(blobs)])


def _pathlike(text: str) -> bool:
    """A string that could name a place outside the probes' empty working folder: ``/``, ``..``, ``~``."""
    return any(c in text for c in _PATHS) or (len(text) > 1 and not text.strip("."))


def _spread(items: list[list[str]], most: int) -> list[list[str]]:
    """At most ``most`` of ``items``, taken evenly from the whole list."""
    if len(items) <= most:
        return items
    step = len(items) / most
    return [items[int(i * step)] for i in range(most)]


def compare(snap: FileSnapshot, candidates: Sequence[str], named: Iterable[tuple[str | None, str]] = (), *,
            budget_s: float = BUDGET_S) -> Disagreement | str:
    """Call the defs the ``candidates`` (whole new texts of ``snap``'s file, the accepted one first) add or change
    on probe inputs; the first disagreement, or how many calls agreed, or why nothing was compared."""
    original = snap.text
    found = targets(original, candidates, named)
    if not found:
        return "no def to compare"
    old, first, tree = defs_of(original), defs_of(candidates[0]), ast.parse(original)
    trees = [tree, *(ast.parse(c) for c in candidates)]
    wanted = []
    for t in found:
        called = [(t.cls, t.meth or "__init__"), (t.cls, "__init__")] if t.cls else [(None, t.meth or "")]
        if any(worldly(tr, [n for k in called if (n := defs_of_tree(tr).get(k)) is not None]) for tr in trees):
            continue  # it may touch files or processes: never called on made-up inputs
        ctor: list[list[str]] = [[]]
        if t.cls is None:  # a function: the literals of its def, the original's where it has one
            scope: list[ast.AST] = [old.get((None, t.meth or "")) or first[None, t.meth or ""]]
        else:
            klass = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == t.cls), None)
            n_ctor = _required(old.get((t.cls, "__init__")), True)
            if klass is None or n_ctor is None or n_ctor > 2:
                continue  # a new class, or one built with keywords or many arguments: no inputs the file shows
            scope = [klass]
            ctor = _spread([list(p) for p in itertools.product(pool(scope), repeat=n_ctor)], 4 * MAX_INSTANCES)
        n_args = 0 if t.meth is None else _required(first.get((t.cls, t.meth)), t.cls is not None)
        if n_args is None or n_args > 2:
            continue
        args = _spread([list(p) for p in itertools.product(pool(scope), repeat=n_args)], 4 * MAX_PROBES)
        wanted.append({"cls": t.cls, "meth": t.meth, "ctor": ctor, "args": args, "new": t.new})
    if not wanted:
        return "no def whose inputs the original file shows"
    data: dict[str, object] = {"sources": [original, *candidates], "targets": wanted, "timeout": CALL_S,
                               "budget": budget_s, "instances": MAX_INSTANCES, "probes": MAX_PROBES}
    told = run_child(snap, _CHILD, data, budget_s + 10 + CALL_S * len(candidates) * 4)
    if told is None:
        return "the probes did not finish"
    if isinstance(told, str):
        return told
    if "load" in told:
        return f"{'the original' if told['load'] == 0 else 'a candidate'} did not load"
    answers, compared, call = told.get("answers"), told.get("compared"), told.get("call")
    return Disagreement(compared if isinstance(compared, int) else 0, call if isinstance(call, str) else None,
                        tuple(map(str, answers)) if isinstance(answers, list) else ())
