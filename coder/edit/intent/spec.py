"""The change spec: one typed reading of an instruction, its names resolved against the code.

Everything downstream of the reading (the planner, auto mode, the explained-change rules, the
result checks and the prompts) takes a :class:`ChangeSpec` and never reads the instruction's text
again, so a wording one of them understands cannot be refused by another that reads it its own way.

Plain data only: the reading itself lives beside this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# a report of a fault that names no function (a bug by its symptom) is one whole-file request up to this length:
# its one place is somewhere in the file, and only a single request gets the mending that follows a fix the model
# did not make (the retry, the samples, the look where the failing oracles point, the one-token repair,
# coder.edit.run.engine.run). Past it the model is asked where the fault is (coder.edit.intent.model_read), and
# only where it cannot say does the file go in windows, which each rewrite their part and get none of that mending
FIX_WHOLE_LINES = 400

Action = Literal[
    "rename", "delete", "move", "add_parameter", "add_method", "add_function", "extract",
    "docstring", "comment", "type_hints", "change", "transform", "unknown",
]  # "fix" words read as "change": fixing and changing behaviour are one action (issue 34)
Reach = Literal["symbol", "file", "callers", "everywhere"]
ChangeKind = Literal["annotations", "docstrings", "comments", "code"]
Where = Literal["before", "after", "above", "below", "inside", "top", "end", "after_imports"]
ReadBy = Literal["grammar", "model", "none"]

ALL_KINDS: frozenset[ChangeKind] = frozenset({"annotations", "docstrings", "comments", "code"})


@dataclass(frozen=True)
class Symbol:
    """A def or class that exists in a file: where it is, and what it is."""

    rel: str  # the file, relative to the work tree
    qualname: str  # "parse", "C.m", "Outer.Inner"
    kind: Literal["function", "method", "class"]
    start: int  # first line (decorators included), 1-based
    end: int  # last line, inclusive

    @property
    def name(self) -> str:
        """The last part of the qualified name."""
        return self.qualname.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Anchor:
    """Where the instruction places a change: relative to a symbol, or to the file."""

    where: Where
    symbol: Symbol | None = None  # None for "top", "end" and "after_imports" of the file
    line: str | None = None  # a code line of ``symbol`` (stripped) the change goes right above (intent/lines.py)
    each: bool = False  # above every line of ``symbol`` that reads ``line`` ("each while loop"), not one


@dataclass(frozen=True)
class Destination:
    """Where a move to another file goes: "to the end of tomllib/_re.py", "after g in util.py".

    The reading holds only the edited file's symbols, so the anchor def of the other file is kept as
    the name the instruction spells; the planner finds it in that file's text.
    """

    rel: str  # the file, as the instruction writes it ("tomllib/_re.py")
    where: Literal["end", "after", "before"] = "end"
    name: str | None = None  # the def or class of that file the moved def goes after or before
    imports: bool = False  # "and import it in the source file": the source imports the moved name from there


@dataclass(frozen=True)
class Facts:
    """What the checks need from the wording beyond the action, the targets and the anchor.

    Each is read once, by :mod:`coder.edit.intent.words`; the checks take them from here.
    """

    code_words: tuple[str, ...] = ()  # names spelled as code (backticks, calls, kind words), resolved or not
    explicit: tuple[str, ...] = ()  # of those, the ones that must exist (a kind word or a call, not created)
    missing: tuple[str, ...] = ()  # explicit names the files do not define (an error, not a guess)
    ticked: tuple[str, ...] = ()  # identifiers inside backticks: a new name asked for must appear
    gone: frozenset[str] = frozenset()  # objects of delete/remove/rename/move/merge...: they may vanish
    ignored: frozenset[str] = frozenset()  # "make f ignore x", "stop using x": values a def may stop using
    delete_defs: frozenset[str] = frozenset()  # "delete the function F": F must be gone
    confined: str | None = None  # "in the function X only": the change stays in X
    handles: bool = False  # "... and handle None": code that checks for a new value is asked for
    errors: bool = False  # "raise ValueError", "crashes", "reject ...": the change may be about an error raised
    fault: bool = False  # a report of what goes wrong ("Fix f: ...", "Bug: x is parsed as y"): one place is at fault
    uses_new: bool = False  # "and use it", "pass it on": a new parameter must be used
    param: tuple[str, str] | None = None  # (parameter, function) of "add a parameter P to F"
    moves: bool = False  # a pure move: one contiguous block moves, nothing else changes
    keeps_names: bool = False  # convert/turn/wrap/refactor/rewrite: the name stays bound, perhaps elsewhere
    files: tuple[str, ...] = ()  # file paths the instruction names
    module_doc: bool = False  # a module docstring is asked for
    members: bool = False  # "every method of C": a class's members, not the class itself
    every_def: bool = False  # "every function", "the undocumented functions": each def (of the file, none named)
    shrinks: bool = False  # words that make a much shorter reply plausible (remove, simplify...)
    extract_into: str | None = None  # "extract ... into a new function F": F must be defined and called
    # "_hue(r, g, b, maxc, rangec)": each name(...) spelled, its parentheses split at commas (a new def's signature)
    signatures: tuple[tuple[str, tuple[str, ...]], ...] = ()
    returned: tuple[str, ...] = ()  # "-> (xbar, ybar, sxy)": the names of the tuple a new def gives back, in order
    callers: bool = False  # the callers or call sites are to change too
    passes: tuple[str, ...] = ()  # "pass char=' ' at its calls": the keyword argument each call passes, as spelled
    # the instruction without its clauses on what the calls pass (those coder writes): what the def's region is asked
    own_words: str = ""
    everywhere: bool = False  # every file that uses the names
    doubtful: tuple[str, ...] = ()  # plain English words that are also symbols, not in a name's place
    statements: tuple[str, ...] = ()  # names of module-level imports/assignments named ("the import of os"), in order
    with_comment: bool = False  # "delete f and g and the comment line above them": the comment above goes too
    cut_line: str | None = None  # a statement of a def the delete spells ("has code = co.co_code ..., delete it")
    none_default: str | None = None  # P of "change the default of P from [] to None": only that is asked
    returns: bool = False  # "that returns ...", "-> bool": a new def the instruction describes gives back a value
    uses: tuple[str, ...] = ()  # "compared with compare_digest": module-level names the change is told to use
    calls: tuple[str, ...] = ()  # "True when ratio() is at least cutoff": methods of the owner a new method calls
    return_hint_only: bool = False  # "add a return type annotation to f": hints for the return, not the parameters


@dataclass(frozen=True)
class Example:
    """A call the instruction says behaves wrongly, and how: read by :mod:`coder.edit.intent.examples`.

    ``unhex(b'ff') returns 85 instead of 255`` is ``Example("unhex(b'ff')", expected="255", wrong="85")``;
    ``_ishidden('') raises IndexError`` is ``Example("_ishidden('')", raises="IndexError")``. The values are
    Python literals as the instruction spells them; :mod:`coder.edit.checks.behaviour` runs the call.
    """

    call: str  # a call of a def or class the edited file defines, its arguments literals
    expected: str | None = None  # what the call should return after the fix
    wrong: str | None = None  # what it returns now, per the report
    raises: str | None = None  # the exception it raises now, per the report

    @property
    def pins(self) -> bool:
        """Whether passing it leaves one right answer: an expected value, or ``True``/``False`` reported wrong.

        "indent_level(8) gives 1" reports only a wrong value: a reply giving 0 passes it, and is wrong too
        (bug-tabnanny-level w0 on the H200, run 12, the 10th sample). "is False" leaves only True.
        """
        return self.expected is not None or (self.raises is None and self.wrong in ("True", "False"))


@dataclass(frozen=True)
class ChangeSpec:
    """What the instruction asks, resolved against the files' symbols."""

    instruction: str  # kept for the prompt only: no check reads it
    action: Action
    targets: tuple[Symbol, ...] = ()  # the symbols the change is about (real ones only)
    renames: tuple[tuple[str, str], ...] = ()  # old -> new names
    values: tuple[tuple[str, str], ...] = ()  # literal substitutions: "from 70 to 80"
    new_names: tuple[str, ...] = ()  # names the change creates (a method, a function, a parameter)
    params: tuple[str, ...] = ()  # parameters the instruction names for a new or changed def ("strict: bool = False")
    anchor: Anchor | None = None  # where the change goes in the edited file, when the instruction says
    dest: Destination | None = None  # a move to another file: where there (the anchor is then None)
    reach: Reach = "file"
    allows: frozenset[ChangeKind] = ALL_KINDS  # the kinds of change the instruction explains
    owner: Symbol | None = None  # the class a new method goes into
    read_by: ReadBy = "grammar"
    ambiguous: tuple[str, ...] = ()  # words that could name more than one symbol
    seconds: float = 0.0  # how long the reading took (a model reading's request included)
    notes: tuple[str, ...] = field(default=())  # what the reading could not settle, said plainly
    lines: tuple[tuple[int, int], ...] = ()  # line ranges the instruction names ("lines 10-40")
    facts: Facts = field(default_factory=Facts)  # the wording's details the checks hold the change to
    examples: tuple[Example, ...] = ()  # a fix's failing calls the instruction gives ("f(1) returns 2 instead of 3")

    @property
    def targeted(self) -> bool:
        """Whether the change is about named symbols (a region plan), not the whole file (windows)."""
        return bool(self.targets) or self.owner is not None or bool(self.lines) or bool(self.ambiguous)

    @property
    def only(self) -> frozenset[ChangeKind] | None:
        """The kinds the change is held to when it may not change code (None: code may change)."""
        return None if "code" in self.allows else self.allows
