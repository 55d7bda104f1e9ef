"""Reading rules of run 23, pinned on the suite's files in wordings of our own."""

from __future__ import annotations

import pytest
from test_intent_phrasings_run22 import read

from coder.edit.intent.read import read_instruction


@pytest.mark.parametrize("said", [
    "shlex.split drops the last word when the line ends in a quote. Typing into the REPL shows the same thing.",
    "split() loses the final token after a closing quote; typing on the keyboard or reading a file, same result",
])
def test_typing_at_a_keyboard_is_no_request_for_type_hints(said: str) -> None:
    assert read("shlex.py", said)[0] == "change"


@pytest.mark.parametrize("said", ["add typing to split", "split needs typing", "typing for shlex.split please"])
def test_typing_of_a_def_still_asks_for_hints(said: str) -> None:
    assert read("shlex.py", said) == ("type_hints", ["split"])


TALLY = '''class Tally:
    def run(self, cmd):
        return self.count(cmd)

    def count(self, cmd):
        return len(cmd)


def run(cmd):
    return Tally().run(cmd)


def main(argv):
    return [run(a) for a in argv]
'''


def test_the_module_prefix_names_the_modules_def_before_a_class_of_the_same_name_in_another_case() -> None:
    # "tally.run()" is the module's run, not Tally.run, whose class differs from the module's name in case only
    spec = read_instruction("tally.run() always gives 0 for a long command", {"tally.py": TALLY}, home="tally.py")
    assert [t.qualname for t in spec.targets] == ["run"]
    spec = read_instruction("Tally.run gives 0", {"tally.py": TALLY}, home="tally.py")
    assert [t.qualname for t in spec.targets] == ["Tally.run"]


@pytest.mark.parametrize(("said", "reach"), [
    ("tally.run() output is always 0: a main() that only calls other functions shows 0 too", "symbol"),
    ("tally.run() is wrong, fix it and its callers", "callers"),
])
def test_a_report_describing_what_calls_what_asks_no_callers(said: str, reach: str) -> None:
    spec = read_instruction(said, {"tally.py": TALLY}, home="tally.py")
    assert ([t.qualname for t in spec.targets], spec.reach) == (["run"], reach)


SERVERS = '''import socket

__all__ = ["Server", "serve"]


class Server:
    def handle(self, data):
        return data

    def close(self):
        return None


class _Lined(Server):
    def handle(self, data):
        return data.splitlines()


if hasattr(socket, "AF_UNIX"):

    class UnixServer(Server):
        family = socket.AF_UNIX

    class UnixLineServer(_Lined):
        family = socket.AF_UNIX

try:
    from _speedups import fast_serve
except ImportError:
    def fast_serve(server, data):
        return server.handle(data)

if socket.has_ipv6:
    def family():
        return socket.AF_INET6
else:
    def family():
        return socket.AF_INET


def serve(data):
    return fast_serve(Server(), data)
'''


def _spec(said: str) -> tuple[str, list[str]]:
    spec = read_instruction(said, {"servers.py": SERVERS}, home="servers.py")
    return spec.action, [t.qualname for t in spec.targets]


def test_defs_inside_an_if_or_a_try_are_symbols_but_a_name_two_branches_define_is_not() -> None:
    assert _spec("add a docstring to fast_serve") == ("docstring", ["fast_serve"])
    assert _spec("rename UnixServer to LocalServer") == ("rename", ["UnixServer"])
    assert _spec("add a docstring to family")[1] == []  # defined in both branches of one `if`: neither for sure


def test_a_class_and_a_method_it_inherits_name_the_base_method() -> None:
    # UnixLineServer defines no handle: its base _Lined does; the class named only qualifies the method
    assert _spec("UnixLineServer.handle drops the last line") == ("change", ["_Lined.handle"])
    assert _spec("fix handle of UnixLineServer: it drops the last line") == ("change", ["_Lined.handle"])
    assert _spec("UnixServer.handle returns bytes, document it")[1] == ["Server.handle"]
    # a class with methods of its own stays the place: what the base's method calls may be its override
    assert _spec("_Lined.close leaves the socket open")[1] == ["_Lined"]


def _plan(said: str) -> list[tuple[int, int, str]]:
    from coder.edit.plan.derive import derive

    spec = read_instruction(said, {"servers.py": SERVERS}, home="servers.py")
    plan = derive("servers.py", SERVERS, spec)
    return [] if plan is None else [(s.start, s.end, s.how) for s in plan.steps]


def test_deleting_every_def_an_if_holds_cuts_the_if_and_a_move_out_of_it_is_no_mechanical_plan() -> None:
    lines = SERVERS.splitlines()
    steps = _plan("delete the classes UnixServer and UnixLineServer")
    assert steps and steps[0][2] == "mechanical" and lines[steps[0][0] - 1].startswith("if hasattr(socket")
    cut = "\n".join(lines[:steps[0][0] - 1] + lines[steps[0][1]:])
    compile(cut, "servers.py", "exec")  # no `if` left without a body
    one = _plan("delete the class UnixServer")  # the other stays, and so does its `if`
    assert one and lines[one[0][0] - 1].strip().startswith("class UnixServer")
    assert _plan("move UnixServer after serve") == []
    assert _plan("move serve before fast_serve") == []


LEDGER = '''"""A ledger of entries."""

RATE = 2


def _neg_check(values):
    for v in values:
        if v < 0:
            raise LedgerError(v)
        yield v


class LedgerError(ValueError):
    pass


class Ledger:
    _gen_counter = 0

    def __init__(self):
        self.entries = []

    def _prune_stale(self):
        self.entries = [e for e in self.entries if e]

    def __len__(self):
        self._prune_stale()
        return len(self.entries)

    def total(self, values):
        return sum(_neg_check(values)) * RATE


def effective(entry, ledger):
    """The entry to book and a delete flag."""
    return ledger, None


def check(entry):
    return entry is not None


def _demo():
    return Ledger().total([1, 2])
'''


def _ledger(said: str) -> str:
    from coder.edit.intent.describe import describe

    return describe(read_instruction(said, {"ledger.py": LEDGER}, home="ledger.py"))


@pytest.mark.parametrize(("said", "read_as"), [
    # the subject of the sentence is the old name, not a class said where it is nor a question's modal
    ("The name _prune_stale in ledger's Ledger says little. I'd like it to be called _drop_empty.",
     "rename _prune_stale -> _drop_empty"),
    ("The class attribute _gen_counter on ledger's Ledger is a generation number. Can you rename it to _generation?",
     "rename _gen_counter -> _generation"),
    ("_neg_check in ledger.py is a cryptic name for a generator that raises LedgerError on a negative value. Could "
     "we rename it to _reject_negatives?", "rename _neg_check -> _reject_negatives"),
])
def test_the_old_name_of_a_wished_one_is_the_sentences_subject(said: str, read_as: str) -> None:
    assert _ledger(said) == read_as


@pytest.mark.parametrize(("said", "read_as"), [
    ("ledger: new Ledger.clear_entries() -- empty the list", "add a method clear_entries to class Ledger"),
    ("ledger: new Ledger.void(entry) -- drop that entry from the entries", "add a method void to class Ledger"),
    ("add Ledger.void(entry) -> None: drop that entry", "add a method void to class Ledger"),
    ("Ledger.void(self, entry): drop that entry from the ledger", "add a method void to class Ledger"),
    ("Ledger.total(self, values): return 0 for an empty list", "change method Ledger.total"),
])
def test_a_new_member_signed_on_its_class_is_a_new_method_and_an_existing_one_a_change(said: str,
                                                                                       read_as: str) -> None:
    assert _ledger(said).startswith(read_as)  # a change of total also takes the def it hands `values` to


def test_a_verb_said_of_a_thing_is_no_order_and_a_class_said_as_a_type_is_no_target() -> None:
    said = ("We're adding type annotations, starting with effective(entry, ledger). It returns a pair: the Ledger "
            "to book on or None, and a bool delete flag or None. Please annotate just that function.")
    assert _ledger(said) == "type hints function effective"
    assert _ledger("type-annotate effective(entry, ledger) -> tuple[Ledger | None, bool | None]") == (
        "type hints function effective")


def test_every_name_of_a_leave_alone_clause_is_kept() -> None:
    said = "Get rid of _demo and check. Leave the Ledger class and the effective and _neg_check helpers alone."
    assert _ledger(said) == "delete function _demo, function check"
    assert _ledger("Leave effective alone and delete _demo") == "delete function _demo"


def test_code_wished_as_a_new_function_is_an_extraction() -> None:
    said = ("Ledger.total mixes two things. I'd like the first part as a module-level function _checked(values) "
            "returning the values, and total should call it.")
    assert _ledger(said) == "extract method Ledger.total into _checked"


def test_an_optional_key_function_is_a_new_parameter() -> None:
    said = "Ledger.total is handy. Could it take an optional key function like sorted() does? Without one, no change."
    assert _ledger(said) == "add a parameter method Ledger.total (key)"


def test_a_report_citing_an_example_of_the_docstring_asks_for_no_docstring() -> None:
    said = ("Ledger.total returns values that are too small. The example in its own docstring should give 6 but I "
            "get 3.")
    assert _ledger(said).startswith("change method Ledger.total")


BROWSER = '''def open(url, new=0, autoraise=True):
    return url, new, autoraise


def open_new_tab(url):
    return open(url, 2)


class Browser:
    def open(self, url, new=0, autoraise=True):
        return url

    def open_new_tab(self, url):
        return self.open(url, 2)
'''


def test_a_bare_call_showing_a_new_keyword_adds_it_to_the_module_def_not_the_method() -> None:
    # seventh set, run 23: "open_new_tab(url, autoraise=True) in webbrowser, passed on to open()" was read as a
    # change of open (the model's pick of the ambiguous "open"), and open was rewritten: applied wrong
    spec = read_instruction("open_new_tab(url, autoraise=True) in browser, passed on to open()",
                            {"browser.py": BROWSER}, home="browser.py")
    assert (spec.action, [t.qualname for t in spec.targets], spec.params, spec.ambiguous) == (
        "add_parameter", ["open_new_tab"], ("autoraise",), ())
