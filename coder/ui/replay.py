"""Recorded replies: capture a real stream to JSON, and a test double that replays it.

:class:`RecordedChat` is a **test double** for :class:`coder.telemetry.stream.ChatClient`:
same ``stream()`` signature, but it replays recorded chunks (optionally re-paced to a
fixed token rate) instead of calling a server. Tests and ``scripts/bench_tui.py`` use it
where a real llama-server cannot run or would make results nondeterministic.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from coder.telemetry.stream import ChatClient, Delta, StreamResult


@dataclass
class Recording:
    chunks: list[Delta]
    result: StreamResult
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"meta": self.meta, "chunks": [asdict(c) for c in self.chunks],
                           "result": asdict(self.result)}, indent=None)

    @classmethod
    def load(cls, path: Path) -> Recording:
        data = json.loads(path.read_text(encoding="utf-8"))
        known = set(StreamResult.__dataclass_fields__)
        result = StreamResult(**{k: v for k, v in data["result"].items() if k in known})
        return cls([Delta(**c) for c in data["chunks"]], result, data.get("meta", {}))

    def scaled(self, repeat: int) -> Recording:
        """The same reply ``repeat`` times over (longer streams for benchmarks)."""
        chunks: list[Delta] = []
        offset_t, offset_n, offset_d, offset_a = 0.0, 0, 0, 0
        for _ in range(repeat):
            for c in self.chunks:
                chunks.append(Delta(c.text, c.elapsed + offset_t,
                                    None if c.draft_n is None else c.draft_n + offset_d,
                                    None if c.draft_n_accepted is None else c.draft_n_accepted + offset_a,
                                    None if c.predicted_n is None else c.predicted_n + offset_n))
            end = chunks[-1]
            offset_t = end.elapsed
            offset_n, offset_d, offset_a = end.predicted_n or 0, end.draft_n or 0, end.draft_n_accepted or 0
        last = chunks[-1] if chunks else None
        result = StreamResult(**{**asdict(self.result), "text": "".join(c.text for c in chunks),
                                 "completion_tokens": (self.result.completion_tokens or 0) * repeat,
                                 "draft_n": last.draft_n if last else None,
                                 "draft_n_accepted": last.draft_n_accepted if last else None})
        return Recording(chunks, result, dict(self.meta, repeat=repeat))


def record(client: ChatClient, messages: list[dict[str, str]], path: Path, **kwargs: Any) -> Recording:
    """Stream one real request and save every chunk (text, timing, counters) to ``path``."""
    chunks: list[Delta] = []
    result = StreamResult()
    for item in client.stream(messages, **kwargs):
        if isinstance(item, Delta):
            chunks.append(item)
        else:
            result = item
    rec = Recording(chunks, result, {"messages": messages, "kwargs": {k: v for k, v in kwargs.items()
                                                                        if isinstance(v, (int, str, float))}})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rec.to_json(), encoding="utf-8")
    return rec


class RecordedChat:
    """Test double of ChatClient: replays a :class:`Recording`.

    ``rate`` (tokens/s) re-paces chunks evenly; ``rate=None`` keeps the recorded timing;
    ``rate=0`` replays as fast as possible. ``engine`` mimics ``ChatClient.engine``.
    """

    def __init__(self, recording: Recording, rate: float | None = 0.0, engine: str = "llama.cpp",
                 recorded_times: bool = False) -> None:
        self.recording = recording
        self.recorded_times = recorded_times  # report the recorded elapsed times (deterministic stats)
        self.rate = rate
        self.engine = engine
        self.requests: list[dict[str, Any]] = []  # what the app asked for (tests inspect it)

    def stream(self, messages: list[dict[str, str]], **kwargs: Any) -> Iterator[Delta | StreamResult]:
        self.requests.append({"messages": messages, **kwargs})
        start = time.monotonic()
        ttft: float | None = None
        for i, chunk in enumerate(self.recording.chunks):
            if self.rate is None:
                due = chunk.elapsed
            elif self.rate > 0:
                due = i / self.rate
            else:
                due = 0.0
            wait = start + due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            now = chunk.elapsed if self.recorded_times else time.monotonic() - start
            ttft = now if ttft is None else ttft
            yield Delta(chunk.text, now, chunk.draft_n, chunk.draft_n_accepted, chunk.predicted_n)
        final = StreamResult(**asdict(self.recording.result))
        if not self.recorded_times:
            final.ttft = ttft
            final.wall = time.monotonic() - start
        final.k_cap = kwargs.get("k_cap")
        yield final


def synthesize(text: str, *, tps: float = 50.0, accept_every: int = 3, chunk_chars: int = 4,
               meta: dict[str, Any] | None = None) -> Recording:
    """A deterministic stand-in recording (~``chunk_chars`` characters per token) for tests.

    Counters follow llama.cpp's convention: ``draft_n`` grows by the draft depth per step and
    ``draft_n_accepted`` by the accepted drafts; every ``accept_every``-th token is a verified one.
    """
    chunks: list[Delta] = []
    drafted = accepted = 0
    pieces = [text[i:i + chunk_chars] for i in range(0, len(text), chunk_chars)]
    for i, piece in enumerate(pieces):
        if i % accept_every == 0:
            drafted += accept_every + 1
        else:
            accepted += 1
        chunks.append(Delta(piece, round(0.05 + i / tps, 6), drafted, accepted, i + 1))
    result = StreamResult(text=text, finish_reason="stop", ttft=0.05, wall=0.05 + len(pieces) / tps,
                          prompt_tokens=120, completion_tokens=len(pieces), cached_tokens=96,
                          draft_n=drafted, draft_n_accepted=accepted)
    return Recording(chunks, result, {"source": "synthesized by coder.ui.replay.synthesize", **(meta or {})})
