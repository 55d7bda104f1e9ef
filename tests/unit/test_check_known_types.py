"""Attribute reads that cannot work: an attribute the value's known type lacks, or one of a method object.

Applied on the H200: quopri's ``quote`` given ``HEX[c%16].upper()`` where ``HEX`` is bytes (quopri-param,
both wordings), and a ``reset`` method reading ``self.__init__.maxother`` (reprlib-method); replayed in
``test_h200_wrong_replayed.py``.
"""

from __future__ import annotations

from spec_of import spec_of

from coder.edit.checks.code_rules import method_attribute_reads
from coder.edit.checks.known_types import missing_attributes
from coder.edit.checks.result import RETRIED, check_result, retry_note

QUOTE = "HEX = b'0123456789ABCDEF'\n\ndef quote(c, lower=False):\n    return bytes((HEX[c // 16], HEX[c % 16]))\n"
REPR = ("class Repr:\n    def __init__(self):\n        self.maxlist = 6\n\n"
        "    def repr1(self, x):\n        return repr(x)[:self.maxlist]\n")


def test_an_attribute_an_item_of_bytes_lacks_is_refused() -> None:
    wrong = QUOTE.replace("HEX[c % 16]))", "HEX[c % 16].lower() if lower else HEX[c % 16]))")
    refused = check_result("m.py", wrong, old=QUOTE, spec=spec_of("quote should honour lower", "m.py", QUOTE))
    assert refused is not None and refused.code == "missing_attribute" and "missing_attribute" in RETRIED
    # what has lower is the whole bytes value: said, so the retry calls it there (on the 2-core CPU, quopri-param w0's
    # retry then wrote the lower-case digits as bytes of their own, and the task's judge found it right)
    assert refused.reason == ("HEX[c % 16] is an int (an item of HEX), which has no attribute lower "
                              "(reading it raises AttributeError); HEX itself is a bytes and has lower: call "
                              "HEX.lower() on the whole value (or on the bytes built from its items), then take items")
    assert "an item of a bytes object is an int" in retry_note(refused.code, refused.reason)


# quopri-param w1's retry on the 2-core CPU (Qwen2.5-Coder-1.5B Q4_K_M, run through scripts/dev/param_header_ab.py),
# verbatim: applied, it was wrong (quote(b'\\xff', lowercase=True) raised TypeError; lower=True, AttributeError)
INT_LOWER = ('''def quote(c, lower=False):
    """Quote a single character."""
    assert isinstance(c, bytes) and len(c)==1
    c = ord(c)
    if lower:
        c = c.lower()
    return ESCAPE + bytes((HEX[c//16], HEX[c%16]))
''')
QUOPRI_QUOTE = ('''ESCAPE = b'='
HEX = b'0123456789ABCDEF'

def quote(c):
    """Quote a single character."""
    assert isinstance(c, bytes) and len(c)==1
    c = ord(c)
    return ESCAPE + bytes((HEX[c//16], HEX[c%16]))
''')


def test_a_local_bound_to_a_builtins_sure_result_has_its_type() -> None:
    wrong = QUOPRI_QUOTE.split("def quote")[0] + INT_LOWER
    refused = check_result("m.py", wrong, old=QUOPRI_QUOTE, spec=spec_of("quote(): optional lowercase argument",
                                                                           "m.py", QUOPRI_QUOTE))
    assert refused is not None and refused.code == "missing_attribute"
    assert refused.reason == "c is an int, which has no attribute lower (reading it raises AttributeError)"


def test_a_local_that_may_hold_something_else_has_no_known_type() -> None:
    head = QUOPRI_QUOTE.split("def quote")[0]
    for body in ("        c = str(c)\n        c = c.lower()",  # bound again before the read
                 "        for x in c:\n            c = 'a'\n        c.lower()"):  # a loop: the read may follow it
        again = head + INT_LOWER.replace("        c = c.lower()", body)
        assert missing_attributes(QUOPRI_QUOTE, again) is None
    late = head + INT_LOWER.replace("    if lower:\n        c = c.lower()", "    f = lambda: c.lower()\n    c = 'a'")
    assert missing_attributes(QUOPRI_QUOTE, late) is None  # the lambda runs after c = 'a'
    shadowed = "def ord(x):\n    return str(x)\n\n" + head + INT_LOWER
    assert missing_attributes("def ord(x):\n    return str(x)\n\n" + QUOPRI_QUOTE, shadowed) is None


def test_an_attribute_the_type_has_passes() -> None:
    right = QUOTE.replace("    return bytes((HEX[c // 16], HEX[c % 16]))\n",
                          "    digits = HEX.lower() if lower else HEX\n"
                          "    return bytes((digits[c // 16], digits[c % 16]))\n")
    assert check_result("m.py", right, old=QUOTE, spec=spec_of("quote should honour lower", "m.py", QUOTE)) is None


def test_a_name_bound_more_than_once_has_no_known_type() -> None:
    rebound = QUOTE + "\ndef use_text():\n    global HEX\n    HEX = '0123456789abcdef'\n"
    wrong = rebound.replace("HEX[c % 16]))", "HEX[c % 16].lower()))")
    assert missing_attributes(rebound, wrong) is None
    assert missing_attributes("x = 1\n", "x = 'a'.nope\n") == (
        "'a' is a str, which has no attribute nope (reading it raises AttributeError)")


def test_an_attribute_of_a_method_object_is_refused() -> None:
    wrong = REPR + "\n    def reset(self):\n        self.maxlist = self.__init__.maxlist\n"
    refused = check_result("m.py", wrong, old=REPR, spec=spec_of("add a method reset to Repr", "m.py", REPR))
    assert refused is not None and refused.code == "unset_attribute"
    assert refused.reason == ("Repr.reset reads self.__init__.maxlist, but self.__init__ is a method, which has "
                              "no attribute maxlist (reading it raises AttributeError)")


def test_what_a_method_object_has_or_the_module_sets_on_it_passes() -> None:
    right = REPR + "\n    def reset(self):\n        self.__init__()\n        return self.repr1.__name__\n"
    assert method_attribute_reads(REPR, right) is None
    tagged = REPR + "\n    def limit(self):\n        return self.repr1.default\n\nRepr.repr1.default = 6\n"
    assert method_attribute_reads(REPR, tagged) is None


def test_a_new_method_reading_what_its_class_container_lacks_is_refused() -> None:
    # queue-method w1 on the H200 (2026-12-03, run 5), applied WRONG: Queue.clear written as
    # `while not self.queue.empty(): self.queue.popleft()`; Queue._init sets self.queue = deque(), which has no empty
    from coder.bench.edits.tasks import source

    old = source("queue.py")
    anchor = "    def _get(self):\n        return self.queue.popleft()\n"
    assert anchor in old
    wrong = old.replace(anchor, anchor + "\n    def clear(self):\n        while not self.queue.empty():\n"
                                         "            self.queue.popleft()\n")
    assert missing_attributes(old, wrong) == (
        "self.queue is a deque, which has no attribute empty (reading it raises AttributeError); self.queue is true "
        "while it holds items: `not self.queue` says it is empty and `while self.queue:` loops until it is; and "
        "self.queue is a list in PriorityQueue, which has no attribute popleft (reading it raises AttributeError)")
    right = old.replace(anchor, anchor + "\n    def clear(self):\n        with self.mutex:\n"
                                         "            self.queue.clear()\n")
    assert missing_attributes(old, right) is None
    # a class that sets the attribute twice (or a name the module binds itself) leaves its type open
    twice = "from collections import deque\nclass Q:\n    def a(self):\n        self.q = deque()\n" \
            "    def b(self):\n        self.q = []\n"
    assert missing_attributes(twice, twice + "    def c(self):\n        return self.q.empty()\n") is None
    own = "def deque():\n    return 1\nclass Q:\n    def a(self):\n        self.q = deque()\n"
    assert missing_attributes(own, own + "    def c(self):\n        return self.q.empty()\n") is None
