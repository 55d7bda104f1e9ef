"""The one-token changes of mutation testing, as edits of a function's text (coder.edit.source.mutants)."""

from __future__ import annotations

from coder.edit.source.mutants import mutants

SRC = '''def f(xs, limit):
    """Count the items >= limit (the docstring is never changed: 1 > 0)."""
    n = 0
    for x in xs[1:]:
        if x >= limit and x != 0:
            n = n + 1
    return n


def g(s, i):
    return "é" + s[i:]


def h(n):
    return f"{n + 1:>4}"
'''


def _whats(start: int, end: int) -> list[str]:
    return [m.what for m in mutants(SRC, start, end)]


def test_each_operator_changes_one_token_and_nothing_else() -> None:
    found = {m.what: m for m in mutants(SRC, 1, 7)}
    assert set(found) == {
        "`0` -> `1`",  # n = 0
        "`1` -> `2`", "`1` -> `0`",  # xs[1:] and n + 1, each one up and one down
        "`x >= limit` -> `x > limit`", "`x != 0` -> `x == 0`",
        "`x >= limit and x != 0` -> `x >= limit or x != 0`",
        "`n + 1` -> `n`", "`n + 1` -> `n - 1`",
    }
    made = found["`x >= limit` -> `x > limit`"]
    assert made.line == 5 and made.text == SRC.replace("if x >= limit and", "if x > limit and")
    assert SRC.splitlines()[1] in made.text  # the docstring's `>=` and `1 > 0` are text, never changed


def test_each_mutant_is_its_own_file() -> None:
    texts = [m.text for m in mutants(SRC, 1, 7)]
    # the 8 changes above, with `1` -> `2` and `1` -> `0` made at xs[1:] and at n + 1 each, and the `0` of
    # `x != 0` one up: 11 files, none the same as another or as the source
    assert len(texts) == len(set(texts)) == 11 and SRC not in texts


def test_a_slice_bound_name_moves_by_one_and_columns_count_characters_not_bytes() -> None:
    # "é" is two bytes in UTF-8: the parser's columns are bytes, the edit must land on the right characters
    assert sorted(m.text.splitlines()[10] for m in mutants(SRC, 10, 11)) == [
        '    return "é" + s[:i]', '    return "é" + s[i + 1:]', '    return "é" + s[i - 1:]', '    return "é" - s[i:]']


def test_nothing_inside_an_f_string_is_changed() -> None:
    assert mutants(SRC, 14, 15) == []


def test_only_the_lines_asked_and_nothing_when_the_text_does_not_parse() -> None:
    assert all(m.line in range(10, 12) for m in mutants(SRC, 10, 11))
    assert mutants("def f(:\n    return 1 > 0\n", 1, 2) == []


def test_a_length_standing_alone_is_one_up_and_one_down_and_never_rebracketed() -> None:
    text = "def f(a, b):\n    n = len(a)\n    m = 2 * len(b)\n    return n + m\n"
    made = {m.what for m in mutants(text, 1, 4)}
    assert {"`len(a)` -> `len(a) - 1`", "`len(a)` -> `len(a) + 1`"} <= made
    assert not any("len(b)" in what for what in made)  # `2 * len(b) - 1` would not be len(b) one down


SIB = '''EVENT_READ = 1
EVENT_WRITE = 2
OP_A = OP_B = OP_C = OP_D = OP_E = 0


class Browser:
    remote_action_newwin = "-new-window"
    remote_action_newtab = "-new-tab"

    def open(self, new, key):
        if new == 2:
            action = self.remote_action_newwin
        events = EVENT_READ if not self.busy else OP_A
        if key in self.seen or key is None:
            return True
        while self.waiting:
            pass
        return not (action and events)
'''


def test_the_operators_added_after_run_21_negate_drop_and_put_not_and_swap_siblings() -> None:
    made = {m.what for m in mutants(SIB, 10, 19)}
    assert {"`key in self.seen` -> `key not in self.seen`", "`key is None` -> `key is not None`",
            "`not self.busy` -> `self.busy`",
            "`self.waiting` -> `not self.waiting`",  # a plain condition of `while`
            "`not (action and events)` -> `(action and events)`",  # the operand keeps its parentheses
            "`self.remote_action_newwin` -> `self.remote_action_newtab`",
            "`EVENT_READ` -> `EVENT_WRITE`"} <= made
    # five names of one stem are a table, not a pair to mix up; `self.busy` is tested by `not`, never put in `not`
    assert not any("OP_" in what for what in made) and "`self.busy` -> `not self.busy`" not in made
    assert "`True` -> `False`" not in made  # keyword arguments and returns: too many to try, too few bugs
    swapped = next(m for m in mutants(SIB, 10, 19) if m.what == "`EVENT_READ` -> `EVENT_WRITE`")
    assert swapped.text == SIB.replace("events = EVENT_READ if", "events = EVENT_WRITE if")


FORKING = '''import os


def spawn(argv):
    pid = os.fork()
    if pid == 0:
        os.execlp(argv[0], *argv)
    if pid > 0:
        os.waitpid(pid, 0)
    if len(argv) > 1:
        os._exit(1)
    return len(argv) - 1
'''


def test_no_change_where_it_could_end_or_replace_the_test_runner() -> None:
    # a test of what fork() returned, a branch that execs or exits, the exit's own argument: none is changed there
    # (run 22: `pid == CHILD` -> `pid != CHILD` made the test process exec the child's program and exit 0)
    made = {m.what for m in mutants(FORKING, 1, 12)}
    assert not any("pid" in what or "argv) > 1" in what for what in made)
    assert "`_exit(1)`" not in " ".join(made) and not any(m.line == 11 for m in mutants(FORKING, 1, 12))
    assert "`len(argv) - 1` -> `len(argv)`" in made  # the rest of the function still is


WRITER = '''def flush(fd, buf, write):
    while buf:
        n = write(fd, buf)
        buf = buf[:n]
    head = buf[1:n]
    return buf[::2], head, buf[1:]
'''


def test_a_slice_with_one_bound_moves_it_to_the_other_side() -> None:
    # added after run 22 (pty's `o_buf[:n]` for `o_buf[n:]`): only a slice with one bound and no step
    made = {m.what: m for m in mutants(WRITER, 1, 6)}
    assert made["`:n` -> `n:`"].text == WRITER.replace("buf = buf[:n]", "buf = buf[n:]")
    assert not any(what.startswith(("`1:n`", "`::2`", "`1:`")) for what in made)  # two bounds, a step, a constant


def test_each_operator_of_a_chained_comparison_moves_on_its_own_and_a_count_knows_its_next_step() -> None:
    text = "def line(lines, n):\n    if 1 <= n < len(lines):\n        return lines[n - 1]\n    return ''\n"
    made = {m.what: m for m in mutants(text, 1, 4)}
    assert made["`1 <= n < len(lines)` -> `1 <= n <= len(lines)`"].text == text.replace("n < len", "n <= len")
    assert "`1 <= n < len(lines)` -> `1 < n < len(lines)`" in made
    # a count moved one step knows the file one step further; an operator swapped has no such step
    assert made["`len(lines)` -> `len(lines) + 1`"].further == text.replace("< len(lines)", "< len(lines) + 2")
    down = next(m for m in mutants(text, 2, 2) if m.what == "`1` -> `0`")
    assert down.further == text.replace("1 <= n", "-1 <= n")
    assert made["`n - 1` -> `n`"].further is None
    assert made["`1 <= n < len(lines)` -> `1 < n < len(lines)`"].further is None
