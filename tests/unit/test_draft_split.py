"""Which speculator drafted how much: the split of ``timings.draft_by_type``, its one share figure,
the CLI stats line and the TUI panel's rows (constructed counts, shaped like coder's build reports)."""

from __future__ import annotations

from coder.cli.edit import _by_type
from coder.telemetry import figures
from coder.telemetry.stats import DraftShare, draft_split, format_drafted
from coder.ui.widgets.speculation.panel import drafted_lines

CHAIN = {"draft-simple": {"steps": 4, "draft_n": 18, "draft_n_accepted": 5},
         "ngram-mod": {"steps": 9, "draft_n": 412, "draft_n_accepted": 400},
         "prediction": {"steps": 0, "draft_n": 0, "draft_n_accepted": 0}}


def test_share_is_drafted_over_all_drafted_and_undefined_without_drafts() -> None:
    assert figures.draft_share(412, 430) == 412 / 430
    assert figures.draft_share(0, 0) is None


def test_split_keeps_speculators_that_drafted_most_first() -> None:
    split = draft_split(CHAIN)
    assert [d.type for d in split] == ["ngram-mod", "draft-simple"]  # prediction drafted nothing
    assert split[0] == DraftShare("ngram-mod", 412, 400, 412 / 430)
    assert sum(d.share for d in split) == 1.0
    assert draft_split(None) == [] and draft_split({}) == []
    assert draft_split({"ngram-mod": {"steps": 0, "draft_n": 0, "draft_n_accepted": 0}}) == []


def test_cli_line_names_each_speculator_with_share_and_accepted() -> None:
    assert format_drafted(CHAIN) == ("drafted: ngram-mod 412 (96%, 400 accepted) · "
                                     "draft-simple 18 (4%, 5 accepted)")
    assert _by_type(CHAIN) == "; " + format_drafted(CHAIN)
    single = {"ngram-mod": {"steps": 2, "draft_n": 41, "draft_n_accepted": 41}}
    assert format_drafted(single) == "drafted: ngram-mod 41 (41 accepted)"  # no share of one
    assert format_drafted(None) == "" and _by_type(None) == ""


def test_panel_rows_align_a_chain_and_shorten_a_lone_speculator() -> None:
    assert drafted_lines(draft_split(CHAIN)) == ["  ngram-mod     412  96% ✓400",
                                                 "  draft-simple   18   4% ✓5"]
    single = {"ngram-mod": {"steps": 2, "draft_n": 41, "draft_n_accepted": 41}}
    assert drafted_lines(draft_split(single)) == ["  all by ngram-mod"]
    big = {"ngram-mod": {"draft_n": 9999, "draft_n_accepted": 9999}, "draft-simple": {"draft_n": 1}}
    assert max(len(line) for line in drafted_lines(draft_split(big))) <= 30  # the panel's width
    assert drafted_lines([]) == []
