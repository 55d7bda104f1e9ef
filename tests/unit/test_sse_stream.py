"""The chat stream reader (coder.backends.runtime.sse, chat.ChatClient) against real recorded streams,
and against a server that goes wrong mid-reply (the HostileStreamDouble test double)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from cli_helpers import error_lines, run_coder
from ui_support import SCENARIOS, load, make_repo

from coder.backends.runtime.handle import chat_client
from coder.backends.runtime.sse import ChunkReader, EventSplitter
from coder.errors import CoderError
from coder.telemetry.prefill import PromptProgress
from coder.telemetry.stats import Chunk, RequestStats
from coder.testing.stream_double import Fault, HostileStreamDouble

DATA = Path(__file__).resolve().parent.parent / "data"
RECORDED = ["chat_reply", "chat_hybrid", "edit_greet", "edit_shapes", "edit_truncated"]


def _events(name: str) -> list[str]:
    return [data for _, data in load(name).chats[0].events]


def _prefill_events() -> list[str]:
    return (DATA / "prefill" / "chat_progress_chunks.jsonl").read_text().splitlines()


def _decode(reads: list[bytes], progress: bool = False) -> tuple[list[Chunk | PromptProgress], ChunkReader]:
    stats = RequestStats()
    reader = ChunkReader(stats, progress=progress)
    splitter = EventSplitter()
    out: list[Chunk | PromptProgress] = []
    for i, data in enumerate(reads):
        out.extend(reader.read(splitter.feed(data), float(i)))
    reader.finish(float(len(reads)))
    return out, reader


def _splits(framed: bytes, events: int) -> dict[str, list[bytes]]:
    per_event = [part + b"\n\n" for part in framed.split(b"\n\n") if part]
    assert len(per_event) == events
    crlf = framed.replace(b"\n", b"\r\n")
    return {
        "one read": [framed],
        "event per read": per_event,
        "7 bytes per read": [framed[i:i + 7] for i in range(0, len(framed), 7)],
        "CRLF, 5 bytes per read": [crlf[i:i + 5] for i in range(0, len(crlf), 5)],
    }


def _expected(events: list[str]) -> dict[str, object]:
    """What the stream says, read independently with json: text, content events, usage, draft steps."""
    text, content, steps, last_draft, usage, reason = [], 0, 0, 0, None, None
    for data in events:
        if data == "[DONE]":
            continue
        obj = json.loads(data)
        draft_n = obj.get("timings", {}).get("draft_n", 0)
        if draft_n > last_draft:
            steps, last_draft = steps + 1, draft_n
        usage = obj.get("usage") or usage
        for choice in obj["choices"]:
            reason = choice.get("finish_reason") or reason
            if choice["delta"].get("content"):
                text.append(choice["delta"]["content"])
                content += 1
    return {"text": "".join(text), "content": content, "steps": steps, "usage": usage, "reason": reason}


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_streams_decode_the_same_however_the_bytes_are_split(name: str) -> None:
    events = _events(name)
    want = _expected(events)
    framed = b"".join(f"data: {data}\n\n".encode() for data in events)
    for how, reads in _splits(framed, len(events)).items():
        items, reader = _decode(reads)
        chunks = [c for c in items if isinstance(c, Chunk)]
        assert "".join(c.text for c in chunks) == want["text"] == "".join(reader.parts), how
        assert reader.stats.chunks == sum(c.count for c in chunks) == want["content"], how
        assert reader.stats.draft_steps == want["steps"], how
        assert reader.stats.finish_reason == want["reason"], how
        usage = want["usage"]
        if isinstance(usage, dict):
            assert reader.stats.completion_tokens == usage["completion_tokens"], how
            assert reader.stats.prompt_tokens == usage["prompt_tokens"], how
        assert reader.done == (events[-1] == "[DONE]"), how


def test_a_burst_in_one_read_is_one_update() -> None:
    events = _events("chat_hybrid")  # speculation accepted 121 tokens in 2 steps: long bursts
    framed = b"".join(f"data: {data}\n\n".encode() for data in events)
    items, reader = _decode([framed])
    assert len(items) == 1 and isinstance(items[0], Chunk)
    assert items[0].count == reader.stats.chunks > 100
    assert reader.stats.draft_by_type is not None and set(reader.stats.draft_by_type) == {"ngram-mod", "draft-simple"}
    assert reader.stats.running_acceptance == pytest.approx(153 / 6 + 1)


def test_prompt_progress_of_a_real_stream_comes_before_its_tokens() -> None:
    events = _prefill_events()
    framed = b"".join(f"data: {data}\n\n".encode() for data in events)
    progress_events = sum(1 for data in events if '"prompt_progress"' in data)
    for how, reads in _splits(framed, len(events)).items():
        items, _ = _decode(reads, progress=True)
        updates = [i for i in items if isinstance(i, PromptProgress)]
        assert len(updates) == progress_events > 1, how
        assert updates[-1].done, how
        first_token = next(n for n, i in enumerate(items) if isinstance(i, Chunk))
        assert all(isinstance(i, PromptProgress) for i in items[:first_token]), how
    items, _ = _decode([framed], progress=False)
    assert not any(isinstance(i, PromptProgress) for i in items)


# vLLM's and SGLang's OpenAI servers frame chunks like this (role first, ``logprobs``, usage last with
# ``choices: []``; vLLM's per-request metrics ride on that last chunk: tests/unit/test_vllm.py)
VLLM = [
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
    '"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
    '"delta":{"content":"def"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
    '"delta":{"content":" f():"},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}',
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":'
    '{"prompt_tokens":12,"total_tokens":15,"completion_tokens":3},"metrics":{"speculative_decoding":'
    '{"mean_acceptance_length":1.5,"num_spec_steps":2,"num_accepted_draft_tokens":1,"num_draft_tokens":14,'
    '"num_spec_tokens":7}}}',
    "[DONE]",
]


def test_vllm_and_sglang_framing() -> None:
    framed = b"".join(f"data: {data}\n\n".encode() for data in VLLM)
    items, reader = _decode([framed])
    assert [c.text for c in items if isinstance(c, Chunk)] == ["def f():"]
    assert reader.stats.completion_tokens == 3 and reader.stats.prompt_tokens == 12
    assert reader.stats.finish_reason == "stop" and reader.done
    assert reader.stats.draft_n is None  # no llama.cpp timings: nothing invented


@pytest.mark.parametrize(("sent", "needle"), [
    (b"data: {not json\n\n", "not JSON"),
    (b"data: [1, 2]\n\n", "not a JSON object"),
    (b'data: {"choices": "x"}\n\n', "choices are not a list"),
    (b'data: {"choices": [{"delta": {"content": 5}}]}\n\n', "non-text content"),
    (b"\x1b]52;c;aGk=\x07<html>\n\n", "not server-sent events"),
    (b'data: {"error": {"message": "slot \\u001b[8mgone"}}\n\n', "slot \\x1b[8mgone"),
    (b"error: {\"message\": \"boom\"}\n\n", "boom"),
])
def test_junk_is_one_line_with_control_characters_escaped(sent: bytes, needle: str) -> None:
    with pytest.raises(CoderError) as err:
        _decode([b'data: {"choices": [{"delta": {"content": "ok"}}]}\n\n', sent])
    message = str(err.value)
    assert needle in message and "\n" not in message
    assert not any(ord(c) < 32 or 127 <= ord(c) < 160 for c in message), message


def test_an_endless_event_is_refused() -> None:
    splitter = EventSplitter()
    with pytest.raises(CoderError, match="no event boundary"):
        for _ in range(80):
            splitter.feed(b"data: " + b"x" * 65536)


@pytest.mark.parametrize(("fault", "needle"), [
    ("junk", "not JSON"),
    ("garbage", "not server-sent events"),
    ("error", "slot crashed"),
    ("stall", "sent no token for 1 s mid-reply"),
    ("kill", "backend gone mid-reply"),
])
def test_a_server_going_wrong_mid_reply_is_one_line_within_the_idle_timeout(fault: Fault, needle: str) -> None:
    recording = load("chat_reply")
    with HostileStreamDouble(recording, fault, after=6) as server:
        client = chat_client(recording.server_info(server.url))
        client.idle_timeout = 1.0
        got: list[str] = []
        start = time.monotonic()
        with pytest.raises(CoderError) as err:
            for item in client.stream([{"role": "user", "content": "hi"}], progress=True):
                if isinstance(item, Chunk):
                    got.append(item.text)
        took = time.monotonic() - start
    assert needle in str(err.value) and "\n" not in str(err.value)
    assert got  # the tokens before the fault did stream
    assert took < 5.0


@pytest.mark.parametrize(("fault", "needle"), [
    ("stall", "sent no token for 2 s"),
    ("kill", "backend gone mid-reply"),
    ("junk", "not JSON"),
])
def test_coder_edit_against_a_broken_stream_leaves_the_file_untouched(tmp_path: Path, fault: Fault,
                                                                      needle: str) -> None:
    scenario = SCENARIOS["edit_greet"]
    root = make_repo(tmp_path, *scenario.files)
    assert scenario.file is not None
    before = (root / scenario.file).read_bytes()
    with HostileStreamDouble(load("edit_greet"), fault, after=20) as server:
        start = time.monotonic()
        proc = run_coder("edit", scenario.file, "-m", scenario.instruction, "--attach", server.url, "--yes",
                         cwd=root, home=tmp_path / "home", env={"CODER_STREAM_IDLE_S": "2"}, timeout=120)
        took = time.monotonic() - start
    lines = error_lines(proc)
    assert proc.returncode != 0 and len(lines) == 1 and needle in lines[0], proc.stderr
    assert (root / scenario.file).read_bytes() == before
    assert took < 60  # the idle timeout, not the 600 s request timeout
