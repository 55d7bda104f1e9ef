"""Sets of half-open integer intervals with set algebra.

An :class:`IntervalSet` stores disjoint, non-adjacent ``[start, end)`` spans in sorted
order, so membership is a binary search and union, intersection and difference are
single merges. Useful for free/busy calendars, byte ranges of a download, line
ranges of a diff, or port allocations.

>>> busy = IntervalSet([(9, 12), (13, 17)])
>>> free = IntervalSet([(8, 18)]) - busy
>>> list(free)
[Interval(start=8, end=9), Interval(start=12, end=13), Interval(start=17, end=18)]
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Union

SpanLike = Union["Interval", tuple[int, int]]


@dataclass(frozen=True, order=True)
class Interval:
    """The integers ``start <= x < end``; empty when ``start == end``."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"interval end {self.end} is before its start {self.start}")

    @classmethod
    def of(cls, span: SpanLike) -> Interval:
        return span if isinstance(span, Interval) else cls(span[0], span[1])

    def __len__(self) -> int:
        return self.end - self.start

    def __contains__(self, x: object) -> bool:
        return isinstance(x, int) and self.start <= x < self.end

    @property
    def empty(self) -> bool:
        return self.start == self.end

    def overlaps(self, other: Interval) -> bool:
        """True when the two share at least one integer."""
        return self.start < other.end and other.start < self.end

    def touches(self, other: Interval) -> bool:
        """True when they overlap or are adjacent, i.e. their union is one interval."""
        return self.start <= other.end and other.start <= self.end

    def intersection(self, other: Interval) -> Interval | None:
        start, end = max(self.start, other.start), min(self.end, other.end)
        return Interval(start, end) if start < end else None

    def shift(self, offset: int) -> Interval:
        return Interval(self.start + offset, self.end + offset)


class IntervalSet:
    """A normalised set of integers stored as sorted, disjoint, non-adjacent intervals."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, spans: Iterable[SpanLike] = ()) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for span in sorted(Interval.of(s) for s in spans):
            self._append(span)

    # -- construction helpers -------------------------------------------------

    def _append(self, span: Interval) -> None:
        """Add ``span`` whose start is >= every stored start (merging if it touches the last)."""
        if span.empty:
            return
        if self._ends and span.start <= self._ends[-1]:
            self._ends[-1] = max(self._ends[-1], span.end)
        else:
            self._starts.append(span.start)
            self._ends.append(span.end)

    @classmethod
    def _from_sorted(cls, spans: Iterable[Interval]) -> IntervalSet:
        out = cls()
        for span in spans:
            out._append(span)
        return out

    @classmethod
    def from_points(cls, points: Iterable[int]) -> IntervalSet:
        """The set holding exactly ``points`` (runs of consecutive integers become one span)."""
        return cls._from_sorted(Interval(p, p + 1) for p in sorted(set(points)))

    # -- reading --------------------------------------------------------------

    def __iter__(self) -> Iterator[Interval]:
        return (Interval(s, e) for s, e in zip(self._starts, self._ends, strict=True))

    def __len__(self) -> int:
        """Number of intervals (not integers; see :attr:`size`)."""
        return len(self._starts)

    def __bool__(self) -> bool:
        return bool(self._starts)

    def __repr__(self) -> str:
        spans = ", ".join(f"({s}, {e})" for s, e in zip(self._starts, self._ends, strict=True))
        return f"IntervalSet([{spans}])"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IntervalSet):
            return NotImplemented
        return self._starts == other._starts and self._ends == other._ends

    def __hash__(self) -> int:
        return hash((tuple(self._starts), tuple(self._ends)))

    @property
    def size(self) -> int:
        """How many integers the set holds."""
        return sum(e - s for s, e in zip(self._starts, self._ends, strict=True))

    @property
    def bounds(self) -> Interval | None:
        """The smallest interval covering the whole set, or None when empty."""
        return Interval(self._starts[0], self._ends[-1]) if self._starts else None

    def __contains__(self, x: object) -> bool:
        if not isinstance(x, int):
            return False
        i = bisect.bisect_right(self._starts, x) - 1
        return i >= 0 and x < self._ends[i]

    def covers(self, span: SpanLike) -> bool:
        """True when every integer of ``span`` is in the set."""
        iv = Interval.of(span)
        if iv.empty:
            return True
        i = bisect.bisect_right(self._starts, iv.start) - 1
        return i >= 0 and iv.end <= self._ends[i]

    def overlapping(self, span: SpanLike) -> Iterator[Interval]:
        """The stored intervals that share an integer with ``span``."""
        iv = Interval.of(span)
        i = max(bisect.bisect_right(self._starts, iv.start) - 1, 0)
        while i < len(self._starts) and self._starts[i] < iv.end:
            if self._ends[i] > iv.start:
                yield Interval(self._starts[i], self._ends[i])
            i += 1

    def gaps(self) -> IntervalSet:
        """The holes between the stored intervals (within :attr:`bounds`)."""
        return IntervalSet._from_sorted(
            Interval(e, s) for e, s in zip(self._ends, self._starts[1:], strict=False)
        )

    # -- set algebra ----------------------------------------------------------

    def __or__(self, other: IntervalSet) -> IntervalSet:
        merged = sorted([*self, *other])
        return IntervalSet._from_sorted(merged)

    def __and__(self, other: IntervalSet) -> IntervalSet:
        out: list[Interval] = []
        a, b = list(self), list(other)
        i = j = 0
        while i < len(a) and j < len(b):
            both = a[i].intersection(b[j])
            if both is not None:
                out.append(both)
            if a[i].end < b[j].end:
                i += 1
            else:
                j += 1
        return IntervalSet._from_sorted(out)

    def __sub__(self, other: IntervalSet) -> IntervalSet:
        out: list[Interval] = []
        cut = list(other)
        j = 0
        for span in self:
            start = span.start
            while j < len(cut) and cut[j].end <= start:
                j += 1
            k = j
            while k < len(cut) and cut[k].start < span.end:
                if cut[k].start > start:
                    out.append(Interval(start, cut[k].start))
                start = max(start, cut[k].end)
                k += 1
            if start < span.end:
                out.append(Interval(start, span.end))
        return IntervalSet._from_sorted(out)

    def __xor__(self, other: IntervalSet) -> IntervalSet:
        return (self - other) | (other - self)

    def complement(self, within: SpanLike) -> IntervalSet:
        """Everything in ``within`` that the set does not hold."""
        return IntervalSet([within]) - self

    # -- mutation-free updates --------------------------------------------------

    def add(self, span: SpanLike) -> IntervalSet:
        return self | IntervalSet([span])

    def remove(self, span: SpanLike) -> IntervalSet:
        return self - IntervalSet([span])

    def shift(self, offset: int) -> IntervalSet:
        return IntervalSet._from_sorted(span.shift(offset) for span in self)

    def clip(self, span: SpanLike) -> IntervalSet:
        """The part of the set inside ``span``."""
        return self & IntervalSet([span])

    def expand(self, before: int, after: int | None = None) -> IntervalSet:
        """Grow every interval (``before`` to the left, ``after`` to the right), merging overlaps.

        Handy for "show N lines of context around each change".
        """
        after = before if after is None else after
        if before < 0 or after < 0:
            raise ValueError("expand takes non-negative amounts")
        return IntervalSet._from_sorted(Interval(s - before, e + after) for s, e in self._pairs())

    def _pairs(self) -> Iterator[tuple[int, int]]:
        return zip(self._starts, self._ends, strict=True)


def allocate(free: IntervalSet, size: int) -> tuple[Interval, IntervalSet] | None:
    """First-fit: take ``size`` integers from the first gap large enough.

    Returns the allocated interval and the remaining free set, or None when nothing fits.

    >>> ports = IntervalSet([(8000, 8003)])
    >>> got, rest = allocate(ports, 2)
    >>> got, rest
    (Interval(start=8000, end=8002), IntervalSet([(8002, 8003)]))
    """
    if size <= 0:
        raise ValueError("size must be positive")
    for span in free:
        if len(span) >= size:
            taken = Interval(span.start, span.start + size)
            return taken, free.remove(taken)
    return None


def parse_ranges(text: str) -> IntervalSet:
    """Parse ``"1-3,7,10-12"`` (inclusive, as in page or line selections) into a set.

    >>> parse_ranges("1-3,7,10-12")
    IntervalSet([(1, 4), (7, 8), (10, 13)])
    """
    spans: list[Interval] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        low, sep, high = part.partition("-")
        try:
            start = int(low)
            end = int(high) if sep else start
        except ValueError:
            raise ValueError(f"not a range: {part!r}") from None
        if end < start:
            raise ValueError(f"range {part!r} ends before it starts")
        spans.append(Interval(start, end + 1))
    return IntervalSet(spans)


def format_ranges(spans: IntervalSet) -> str:
    """The inverse of :func:`parse_ranges`."""
    out = []
    for span in spans:
        last = span.end - 1
        out.append(str(span.start) if last == span.start else f"{span.start}-{last}")
    return ",".join(out)


def coverage(spans: Iterable[SpanLike]) -> dict[int, IntervalSet]:
    """Depth map: for each depth d, where at least d of the (possibly overlapping) spans overlap.

    >>> coverage([(0, 10), (5, 15)])[2]
    IntervalSet([(5, 10)])
    """
    events: list[tuple[int, int]] = []
    for span in map(Interval.of, spans):
        if not span.empty:
            events.append((span.start, 1))
            events.append((span.end, -1))
    events.sort()
    depth = 0
    opened: dict[int, int] = {}
    result: dict[int, list[Interval]] = {}
    for pos, step in events:
        if step > 0:
            depth += 1
            opened[depth] = pos
        else:
            start = opened.pop(depth)
            if start < pos:
                result.setdefault(depth, []).append(Interval(start, pos))
            depth -= 1
    sets: dict[int, IntervalSet] = {}
    for d in sorted(result):
        spans_at = [iv for k in result if k >= d for iv in result[k]]
        sets[d] = IntervalSet(spans_at)
    return sets
