"""Prometheus exposition → SpecStats → deltas, on fixed text shaped like each engine's."""

from __future__ import annotations

import pytest

from coder.telemetry.metrics import parse_metrics

LLAMA = """\
# HELP llamacpp:spec_decode_num_drafts_total Number of speculative decoding drafts.
# TYPE llamacpp:spec_decode_num_drafts_total counter
llamacpp:spec_decode_num_drafts_total {drafts}
# TYPE llamacpp:spec_decode_num_draft_tokens_total counter
llamacpp:spec_decode_num_draft_tokens_total {draft_tokens}
# TYPE llamacpp:spec_decode_num_accepted_tokens_total counter
llamacpp:spec_decode_num_accepted_tokens_total {accepted}
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total {generated}
# TYPE llamacpp:spec_decode_num_accepted_tokens_per_pos_total counter
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="0"}} {p0}
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="1"}} {p1}
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="2"}} {p2}
"""


def _llama(**v: float) -> str:
    return LLAMA.format(**v)


def test_llamacpp_delta_gives_acceptance_length_and_per_position() -> None:
    before = parse_metrics(_llama(drafts=10, draft_tokens=30, accepted=12, generated=50, p0=6, p1=4, p2=2))
    after = parse_metrics(_llama(drafts=30, draft_tokens=90, accepted=52, generated=150, p0=24, p1=18, p2=10))
    assert before.engine == "llama.cpp" and before.has_spec_metrics
    delta = after - before
    assert delta.acceptance_length == pytest.approx(1 + 40 / 20)
    assert delta.acceptance_rate == pytest.approx(40 / 60)
    assert delta.mean_draft_len == pytest.approx(3.0)
    assert delta.survival() == pytest.approx([18 / 20, 14 / 20, 8 / 20])
    # conditional: per_pos[i] / per_pos[i-1], first against the number of drafts
    assert delta.conditional() == pytest.approx([18 / 20, 14 / 18, 8 / 14])
    assert sum(delta.survival()) + 1 == pytest.approx(delta.acceptance_length)


def test_no_drafts_means_no_acceptance_length() -> None:
    snap = parse_metrics(_llama(drafts=5, draft_tokens=5, accepted=5, generated=5, p0=5, p1=0, p2=0))
    delta = snap - snap
    assert delta.acceptance_length is None and delta.survival() == []


def test_vllm_labels_are_summed_and_per_position_drafted_is_read() -> None:
    text = """\
# TYPE vllm:spec_decode_num_drafts counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 100.0
vllm:spec_decode_num_drafts_created{engine="0",model_name="m"} 1.7e9
# TYPE vllm:spec_decode_num_draft_tokens counter
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 700.0
# TYPE vllm:spec_decode_num_accepted_tokens counter
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 347.0
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 90.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 70.0
# TYPE vllm:spec_decode_num_draft_tokens_per_pos counter
vllm:spec_decode_num_draft_tokens_per_pos_total{engine="0",model_name="m",position="0"} 100.0
vllm:spec_decode_num_draft_tokens_per_pos_total{engine="0",model_name="m",position="1"} 100.0
"""
    stats = parse_metrics(text)
    assert stats.engine == "vllm"
    assert (stats.drafts, stats.draft_tokens, stats.accepted) == (100, 700, 347)  # _created ignored
    assert stats.accepted_per_pos == (90, 70) and stats.drafted_per_pos == (100, 100)


def test_sglang_gauges() -> None:
    text = ('# TYPE sglang:spec_accept_length gauge\n'
            'sglang:spec_accept_length{model_name="m",tp_rank="0"} 3.21\n'
            '# TYPE sglang:spec_accept_rate gauge\n'
            'sglang:spec_accept_rate{model_name="m",tp_rank="0"} 0.45\n')
    stats = parse_metrics(text)
    assert stats.engine == "sglang" and stats.accept_length_gauge == pytest.approx(3.21)
    assert stats.accept_rate_gauge == pytest.approx(0.45)


def _real_pages() -> list[tuple[str, str]]:
    """Every real /metrics page in the test data: recorded llama-server replies, a llama.cpp and a vLLM page."""
    import json
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "data"
    pages = [("llamacpp_real_metrics.txt", (data / "engines" / "llamacpp_real_metrics.txt").read_text())]
    pages += [(p.name, p.read_text()) for p in sorted((data / "engines" / "real_vllm_0.26.0").glob("*metrics*"))]
    for rec in sorted((data / "ui").glob("*.json")):
        for exchange in json.loads(rec.read_text()).get("exchanges", []):
            if exchange.get("path") == "/metrics" and exchange.get("text"):
                pages.append((rec.name, exchange["text"]))
                break
    return pages


PAGES = _real_pages()


@pytest.mark.parametrize("text", [text for _, text in PAGES], ids=[name for name, _ in PAGES])
def test_the_direct_reader_reads_real_pages_as_the_reference_parser(text: str) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    from coder.telemetry.metrics import _plain_samples

    def read_as_coder(samples: list[tuple[str, dict[str, str], float]]) -> list[tuple[str, dict[str, str], float]]:
        # the reference names a counter's sample ..._total even where the page did not: coder drops the suffix
        return [(name.removesuffix("_total"), labels, value) for name, labels, value in samples]

    reference = [(s.name, dict(s.labels), s.value) for family in text_string_to_metric_families(text)
                 for s in family.samples]
    assert reference and read_as_coder(_plain_samples(text)) == read_as_coder(reference)


def test_a_line_beyond_the_plain_form_goes_to_the_reference_parser() -> None:
    from coder.telemetry.metrics import _plain_samples

    text = 'llamacpp:tokens_predicted_total{note="a \\"quoted\\" word"} 7\n'
    with pytest.raises(ValueError, match="not a plain sample"):
        _plain_samples(text)
    assert parse_metrics(text).generated == 7  # read all the same, by prometheus_client
