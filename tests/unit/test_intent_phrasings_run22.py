"""Reading rules of run 22, pinned on the suite's files in wordings of our own: "take X out" deletes X when X is a
def (named, or said with its kind), and changes the def that has X when X is a parameter or a local."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.intent.read import read_instruction


def read(file: str, said: str) -> tuple[str, list[str]]:
    spec = read_instruction(said, {file: source(file)}, home=file)
    return spec.action, [t.qualname for t in spec.targets]


@pytest.mark.parametrize(("said", "target"), [
    ("Please take the cancel method out of sched.py, nobody calls it", "scheduler.cancel"),
    ("take dedent out of textwrap.py", "dedent"),
    ("rip the shorten function out of the module, we wrap everything ourselves", "shorten"),
    ("could you take the indent helper out? it is unused here", "indent"),
])
def test_take_a_def_out_deletes_it(said: str, target: str) -> None:
    file = "sched.py" if "sched" in said else "textwrap.py"
    assert read(file, said) == ("delete", [target])


@pytest.mark.parametrize("said", [
    "shorten should take width out of its kwargs",
    "Take it easy with shorten: take the placeholder out of its keyword arguments",
])
def test_take_a_parameter_out_changes_the_def_never_cuts_it(said: str) -> None:
    assert read("textwrap.py", said) == ("change", ["shorten"])


def test_taking_code_out_into_a_new_helper_is_an_extraction() -> None:
    said = "take the whitespace handling out of TextWrapper._munge_whitespace into a new helper _expand_tabs"
    assert read("textwrap.py", said)[0] == "extract"


def described(file: str, said: str, text: str | None = None) -> str:
    from coder.edit.intent.describe import describe

    return describe(read_instruction(said, {file: text if text is not None else source(file)}, home=file))


@pytest.mark.parametrize(("said", "read_as"), [
    # a wished name after "I'd like it called"; "Can you rename it to Y?" after "is called X" (a module constant)
    ("The name _fix_sentence_endings is misleading, it only fixes the spacing after them. I'd like it called "
     "_space_sentences, with the place that calls it updated.", "rename _fix_sentence_endings -> _space_sentences"),
    ("The compiled regex for blank lines is called _whitespace_only_re, which made me look for a class that doesn't "
     "exist. Can you rename it to _blank_line_re?", "rename _whitespace_only_re -> _blank_line_re"),
    # two defs named, neither said as the one "called": the one said first is the subject of the wish
    ("TextWrapper._split_chunks is the part of TextWrapper.wrap that cuts the text into pieces. Could you rename "
     "the method to _chunked, including where wrap calls it?", "rename _split_chunks -> _chunked"),
])
def test_a_wished_name_renames_the_name_it_replaces(said: str, read_as: str) -> None:
    assert described("textwrap.py", said).startswith(read_as)


def test_a_description_of_what_does_not_exist_names_no_def() -> None:
    # "a parser class that doesn't exist" is what the user looked for; its "t" matched no one-letter name part
    said = "_whitespace is the string of whitespace characters, which made me look for a wrapper class that " \
           "doesn't exist. Rename it to _WHITESPACE."
    assert described("textwrap.py", said).startswith("rename _whitespace -> _WHITESPACE")


@pytest.mark.parametrize(("said", "read_as"), [
    ("textwrap.dedent needs a docstring example", "docstrings function dedent"),  # the module's own name first
    ("split the tab expansion out of textwrap.TextWrapper._munge_whitespace into _expand_tabs(text)",
     "extract method TextWrapper._munge_whitespace into _expand_tabs"),
    # an arrow between words that name nothing of the file is what the code does, no rename
    ("split the CRLF/CR -> LF step out of indent into _unix_newlines(text)", "extract function indent into "
     "_unix_newlines"),
    ("add textwrap.dedent_all(lines): dedent each string of a list", "add a function dedent_all"),
])
def test_module_qualified_names_and_extractions_said_with_out_of(said: str, read_as: str) -> None:
    assert described("textwrap.py", said) == read_as


def test_a_verb_someone_was_told_is_not_the_request_and_the_def_to_use_instead_stays() -> None:
    said = ("textwrap.shorten has told people to use fill() instead for years and nothing here calls it. Please "
            "remove that function. wrap and indent have to stay, fill still calls wrap.")
    assert described("textwrap.py", said).startswith("delete function shorten")


def test_the_text_after_a_comment_colon_names_no_target() -> None:
    said = ("In TextWrapper._fix_sentence_endings the line with chunks[i] = ... took me a while. Please add a "
            "comment above it: wrap and fill call this through _wrap_chunks, and shorten too.")
    assert described("textwrap.py", said).startswith("comments method TextWrapper._fix_sentence_endings")


OWN = '''def pickle(ob_type, pickle_function, constructor_ob=None):
    constructor(constructor_ob)


def constructor(object):
    if not callable(object):
        raise TypeError("constructors must be callable")
'''


@pytest.mark.parametrize("said", ["move def constructor above def pickle",
                                  "Please move the constructor function up so it sits right before pickle"])
def test_a_def_named_constructor_is_that_def_not_an_init(said: str) -> None:
    assert described("reg.py", said, OWN) == "move function constructor before function pickle"


@pytest.mark.parametrize(("said", "read_as"), [
    # the default said before its words, and the def that is to take it, not the one named before it
    ("When wrap gets very long words, could dedent take an optional margin (0 by default, meaning no extra indent) "
     "that is added back to each line?", "add a parameter function dedent (margin)"),
    ("If fill has already failed, could shorten take an optional ellipsis ('...' by default) to put at the cut?",
     "add a parameter function shorten (ellipsis)"),
    # "X takes p" is a fact about X, not a request: the parameter goes where it is asked
    ("textwrap.indent takes a predicate, but dedent does not. Please add a predicate parameter to dedent, None by "
     "default as in indent.", "add a parameter function dedent (predicate)"),
])
def test_could_f_take_an_optional_p_with_its_default_said_first(said: str, read_as: str) -> None:
    assert described("textwrap.py", said) == read_as
