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
