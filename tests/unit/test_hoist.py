"""An extracted function written inside the class as a broken method is lifted to the module (checks.hoist)."""

from __future__ import annotations

from coder.edit.checks.hoist import hoisted
from coder.edit.intent.read import read_instruction

OLD = '''import os


class Tally:
    def __init__(self):
        self.counts = {}

    def total(self):
        n = 0
        for v in self.counts.values():
            n += v
        return n
'''

ASKED = "pull the summing loop of Tally.total out into a top-level function _sum_counts(counts) and call it there"

# what the 1.5B wrote on the eighth fresh set: the new function inside the class, called through self
NEW = OLD.replace('''    def total(self):
        n = 0
        for v in self.counts.values():
            n += v
        return n
''', '''    def _sum_counts(counts):
        n = 0
        for v in counts.values():
            n += v
        return n

    def total(self):
        return self._sum_counts(self.counts)
''')


def spec():  # type: ignore[no-untyped-def]
    return read_instruction(ASKED, {"tally.py": OLD}, home="tally.py")


def test_the_new_function_goes_above_the_class_and_its_calls_lose_self() -> None:
    assert spec().action == "extract"
    out = hoisted(OLD, NEW, spec())
    assert out == OLD.replace('''class Tally:''', '''def _sum_counts(counts):
    n = 0
    for v in counts.values():
        n += v
    return n


class Tally:''').replace('''    def total(self):
        n = 0
        for v in self.counts.values():
            n += v
        return n
''', '''    def total(self):
        return _sum_counts(self.counts)
''')
    namespace: dict[str, object] = {}
    exec(compile(out, "tally.py", "exec"), namespace)  # our own module, run to call it
    tally = namespace["Tally"]()  # type: ignore[operator]
    tally.counts.update(a=2, b=3)
    assert tally.total() == 5


def test_a_real_method_a_decorated_one_or_a_bare_use_stays_as_written() -> None:
    method = NEW.replace("def _sum_counts(counts):", "def _sum_counts(self, counts):")
    assert hoisted(OLD, method, spec()) == method  # a method may be what was written, and it works
    static = NEW.replace("    def _sum_counts(counts):", "    @staticmethod\n    def _sum_counts(counts):")
    assert hoisted(OLD, static, spec()) == static
    bare = NEW + "\n\nprint(_sum_counts({}))\n"
    assert hoisted(OLD, bare, spec()) == bare
    existed = OLD.replace("    def total(self):",
                          "    def _sum_counts(counts):\n        return 0\n\n    def total(self):")
    assert hoisted(existed, NEW, spec()) == NEW  # not new: nothing to lift


def test_the_lifted_function_is_explained_outside_the_region_sent_and_nothing_else_is() -> None:
    from coder.edit.checks.explained import check_scope
    from coder.edit.source.regions import python_symbols

    region = dict(python_symbols(OLD))["Tally.total"]
    out = hoisted(OLD, NEW, spec())
    assert not [c for c in check_scope(OLD, out, spec(), rel="tally.py", region=region).changes if not c.explained]
    stray = out.replace("import os\n", "import os\nimport sys\n")  # a change of the reply's own outside the region
    assert [c for c in check_scope(OLD, stray, spec(), rel="tally.py", region=region).changes if not c.explained]
