"""Reading and check rules of run 21, each pinned on the suite's files (or on a recorded real reply) in wordings of
our own: a report that cites what a docstring says asks for code, a builtin's call names the special method it runs,
a plain string that spells a local's placeholder is an f-string with its ``f`` left out, and a change told to use
a name of the module ("compared with compare_digest") must refer to it."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.checks.code_rules import broken_calls
from coder.edit.checks.fstrings import missing_fprefix
from coder.edit.checks.uses import unused_asked
from coder.edit.intent.read import read_instruction
from coder.edit.intent.spec import ChangeSpec


def read(file: str, said: str) -> tuple[str, list[str]]:
    spec = read_instruction(said, {file: source(file)}, home=file)
    return spec.action, [t.qualname for t in spec.targets]


@pytest.mark.parametrize("said", [
    "rgb_to_hls(1, 0, 0.5) returns a negative hue, but the docstring of rgb_to_hls says hues are between 0 and 1.",
    "The docstring says rgb_to_hls gives hues in [0, 1), yet red-magenta colours come out negative",
    "rgb_to_hls gives -0.1 for some colours; its docstring even promises 0 to 1",
    "According to its docstring rgb_to_hls returns a hue in range, but it doesn't for magenta",
    # a verb of the report ("give") is no order to write the docstring it then cites
    "rgb_to_hls(1, 0, 0.5) and rgb_to_hls(1, 0, 0.4) both give negative hues. The docstring of colorsys.rgb_to_hls "
    "even says hues stay in [0, 1).",
])
def test_a_report_citing_what_a_docstring_says_asks_for_code(said: str) -> None:
    assert read("colorsys.py", said) == ("change", ["rgb_to_hls"])


@pytest.mark.parametrize("said", [
    "hls_to_rgb's docstring is wrong, fix it",
    "rgb_to_hls's docstring says it returns floats; make it say a tuple of floats",
    "the docstring of rgb_to_hls says nothing about the ranges, add them",
    "The docstring of colorsys.rgb_to_hls is outdated, update it",
    "Its docstring says rgb_to_hls returns degrees; it should say a fraction of a turn",
])
def test_a_docstring_asked_for_is_still_a_docstring(said: str) -> None:
    assert read("colorsys.py", said)[0] == "docstring"


@pytest.mark.parametrize(("said", "target"), [
    ("round() on a half fraction goes to the odd neighbour, it should go to the even one", "Fraction.__round__"),
    ("math.floor(Fraction(-7, 2)) gives -3 instead of -4", "Fraction.__floor__"),
    ("str(Fraction(1, 3)) prints 1/3 but I'd like (1/3)", "Fraction.__str__"),
])
def test_a_builtins_call_names_the_special_method_it_runs(said: str, target: str) -> None:
    assert read("fresh6/fractions.py", said) == ("change", [target])


def test_a_def_said_by_name_beats_a_builtin_used_in_it() -> None:
    assert read("fresh6/fractions.py", "use len() in limit_denominator")[1] == ["Fraction.limit_denominator"]


CALENDAR = source("fresh6/calendar.py")
TITLE = "        a('<title>Calendar for %d</title>\\n' % theyear)\n"
SIGNATURE = "    def formatyearpage(self, theyear, width=3, css='calendar.css', encoding=None):\n"
WITH_TITLE = "    def formatyearpage(self, theyear, width=3, css='calendar.css', encoding=None, title=None):\n"


def titled(body: str) -> str:
    assert CALENDAR.count(TITLE) == 1 and CALENDAR.count(SIGNATURE) == 1
    return CALENDAR.replace(SIGNATURE, WITH_TITLE).replace(TITLE, body)


def test_a_placeholder_without_its_f_is_refused() -> None:
    # the 1.5B's reply on the 2-core CPU (run 20), applied then: every page titled "{title}"
    wrong = titled("        if title is None:\n            title = f'Calendar for {theyear}'\n"
                   "        a('<title>{title}</title>\\n')\n")
    why = missing_fprefix(CALENDAR, wrong)
    assert why is not None and "{title}" in why and "formatyearpage" in why


@pytest.mark.parametrize("body", [
    # the other wording's reply, applied and right
    "        if title is None:\n            title = 'Calendar for %d' % theyear\n"
    "        a('<title>%s</title>\\n' % title)\n",
    "        a(f'<title>{title or theyear}</title>\\n')\n",
    "        a('<title>{title}</title>\\n'.format(title=title or theyear))\n",
    "        page = '<title>{title}</title>\\n'\n        a(page.format(title=title))\n",
    "        a('<title>{nothing}</title>\\n')\n",  # braces of no name the def binds: not a placeholder of it
])
def test_formatted_strings_and_braces_of_no_local_pass(body: str) -> None:
    assert missing_fprefix(CALENDAR, titled(body)) is None


HMAC = source("fresh6/hmac.py")
HEXDIGEST = "    def hexdigest(self):\n"
# the 1.5B's verify on the 2-core CPU (run 20), applied then: right answers, and no constant-time comparison
EQ_VERIFY = ('    def verify(self, signature):\n'
             '        """Verify that the signature matches the digest of the message.\n        """\n'
             '        return self.digest() == signature\n\n')
CT_VERIFY = ('    def verify(self, signature):\n'
             '        """Whether signature is this object\'s digest (constant time)."""\n'
             '        return compare_digest(self.digest(), signature)\n\n')


def with_method(method: str) -> str:
    assert HMAC.count(HEXDIGEST) == 1
    return HMAC.replace(HEXDIGEST, method + HEXDIGEST)


def hmac_spec(said: str) -> ChangeSpec:
    return read_instruction(said, {"hmac.py": HMAC}, home="hmac.py")


@pytest.mark.parametrize("said", [
    "give HMAC a verify(expected) method that compares with compare_digest, so it runs in constant time",
    "HMAC needs verify(mac) -> bool; do the comparison via the module's compare_digest",
    "Add a verify method to HMAC using hmac.compare_digest rather than ==",
])
def test_a_change_told_to_use_a_name_of_the_module_must_use_it(said: str) -> None:
    spec = hmac_spec(said)
    assert spec.facts.uses == ("compare_digest",)
    why = unused_asked(HMAC, with_method(EQ_VERIFY), spec)
    assert why is not None and "compare_digest" in why and "HMAC.verify" in why
    assert unused_asked(HMAC, with_method(CT_VERIFY), spec) is None


@pytest.mark.parametrize("said", [
    "give HMAC a verify method without using compare_digest",
    "add HMAC.verify, comparing with == instead of compare_digest",
    "make digest faster by calling _hashopenssl.hmac_digest directly",  # another module's name
    "add a verify method to HMAC that returns True when the MAC matches",
])
def test_no_name_to_use_is_kept_from_a_negation_or_another_module(said: str) -> None:
    assert hmac_spec(said).facts.uses == ()


def params(file: str, said: str) -> tuple[str, list[str], tuple[str, ...]]:
    spec = read_instruction(said, {file: source(file)}, home=file)
    return spec.action, [t.qualname for t in spec.targets], spec.params


@pytest.mark.parametrize(("said", "target", "param"), [
    ("please let dedent take an optional keep, default None: when given, lines starting with it stay", "dedent",
     "keep=None"),
    ("make fill accept an extra indent_first defaulting to 0", "fill", "indent_first=0"),
    ("shorten: allow a custom ellipsis (placeholder_end=None -> keep the current ' [...]')", "shorten",
     "placeholder_end=None"),
])
def test_a_new_parameter_said_with_its_default_without_the_word_parameter(said: str, target: str, param: str) -> None:
    assert params("textwrap.py", said) == ("add_parameter", [target], (param,))


def test_the_words_of_a_quoted_phrase_are_text_not_names() -> None:
    said = "indent always prefixes with 'TextWrapper for <x>'; give it a new last parameter, tag, defaulting to None"
    assert params("textwrap.py", said)[:2] == ("add_parameter", ["indent"])
    # a quoted list of names still names them, and a quoted call is code
    assert read("textwrap.py", "the 'dedent and indent' helpers need docstrings") == ("docstring", ["dedent", "indent"])
    assert read("textwrap.py", "fill() says 'fill() got an unexpected keyword' when I pass width")[1] == ["fill"]


@pytest.mark.parametrize(("file", "said", "target"), [
    ("fresh3/gzip.py", "Add type hints to gzip.compress. The keyword mtime is a float or None.", "compress"),
    ("fresh3/py_compile.py", "Add type hints to compile. invalidation_mode is a PycInvalidationMode or None, the rest "
     "are str, bool and int.", "compile"),
    ("fresh3/py_compile.py", "hint compile(): file and cfile are str, invalidation_mode a PycInvalidationMode or None",
     "compile"),
])
def test_a_defs_own_parameters_and_their_types_are_no_targets(file: str, said: str, target: str) -> None:
    assert read(file, said) == ("type_hints", [target])


STORES = '''class Store:
    def __init__(self, path, mode="r", encoding="utf-8"):
        self.path, self.mode, self.encoding = path, mode, encoding


class FileStore(Store):
    def __init__(self, path, mode="r"):
        Store.__init__(self, path, mode)


def open_store(path, mode="r"):
    return FileStore(path, mode)
'''


def test_a_class_takes_a_new_parameter_in_its_init_and_one_that_has_it_is_no_target() -> None:
    said = ("Store already takes an encoding argument, but open_store and FileStore don't let me pass one. Please add "
            "encoding='utf-8' as the last parameter of both and pass it through to Store.")
    spec = read_instruction(said, {"stores.py": STORES}, home="stores.py")
    assert spec.action == "add_parameter"
    assert sorted(t.qualname for t in spec.targets) == ["FileStore.__init__", "open_store"]


def test_a_call_of_a_class_must_fit_its_own_init() -> None:
    passed_on = STORES.replace('def open_store(path, mode="r"):\n    return FileStore(path, mode)',
                               'def open_store(path, mode="r", encoding="utf-8"):\n'
                               '    return FileStore(path, mode, encoding)')
    assert "FileStore() takes 2 positional argument(s) but the call gives 3" in (broken_calls(STORES, passed_on) or "")
    both = passed_on.replace('    def __init__(self, path, mode="r"):\n        Store.__init__(self, path, mode)',
                             '    def __init__(self, path, mode="r", encoding="utf-8"):\n'
                             '        Store.__init__(self, path, mode, encoding)')
    assert broken_calls(STORES, both) is None


def test_rename_the_class_names_the_one_class_said_before() -> None:
    said = ("The wrapper is called TextWrapper, but it is a Formatter more than a wrapper. Rename the class to "
            "TextFormatter throughout textwrap.py please.")
    spec = read_instruction(said, {"textwrap.py": source("textwrap.py")}, home="textwrap.py")
    assert (spec.action, spec.renames) == ("rename", (("TextWrapper", "TextFormatter"),))


def test_an_arrow_to_an_order_is_no_rename() -> None:
    said = ("TextWrapper.wrap and TextWrapper.fill both split the text the same way -> pull out a _split_text(self, "
            "text) method and use it in both")
    spec = read_instruction(said, {"textwrap.py": source("textwrap.py")}, home="textwrap.py")
    assert spec.renames == () and "way" not in spec.new_names and "pull" not in spec.new_names


def test_a_name_said_to_stay_or_called_is_no_def_to_delete() -> None:
    said = ("TextWrapper._split_chunks and TextWrapper._fix_sentence_endings are old shims calling _wrap_chunks. "
            "Please delete both methods; _wrap_chunks itself has to stay.")
    assert read("textwrap.py", said) == ("delete", ["TextWrapper._split_chunks", "TextWrapper._fix_sentence_endings"])


def test_cut_and_paste_moves_and_its_caller_stays() -> None:
    said = ("shorten sits at the bottom but its only caller is TextWrapper.wrap. Please cut the function and paste it "
            "directly before the TextWrapper class definition, leaving its code as is.")
    assert read("textwrap.py", said) == ("move", ["shorten"])


SELECTORS = '''class Base:
    def _lookup(self, fd):
        return self.keys[fd]


class Poll(Base):
    def select(self):
        return self._lookup(1)


class Epoll(Base):
    def select(self):
        return self._lookup(2)
'''


def test_where_the_one_def_renamed_is_called_leaves_nothing_ambiguous() -> None:
    said = ("I'd like the private method _lookup renamed to _find_key. It is defined on Base and called from the "
            "select() of every class, so all of those calls need to change with it.")
    spec = read_instruction(said, {"sel.py": SELECTORS}, home="sel.py")
    assert (spec.action, spec.renames, spec.ambiguous) == ("rename", (("_lookup", "_find_key"),), ())


def test_a_parameters_type_said_as_its_argument_is_no_target() -> None:
    said = ("Add type hints to key_value_rule. The out argument is an Output, header a tuple of str, and it returns "
            "an int.")
    assert read("tomllib/_parser.py", said) == ("type_hints", ["key_value_rule"])


def test_what_the_def_itself_calls_is_no_call_of_its_callers() -> None:
    said = "Please add a keep_ends parameter to indent, False by default, and hand it on when it calls splitlines."
    spec = read_instruction(said, {"textwrap.py": source("textwrap.py")}, home="textwrap.py")
    assert (spec.action, spec.facts.callers, spec.reach) == ("add_parameter", False, "symbol")
