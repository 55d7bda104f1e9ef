"""A least-recently-used cache whose entries also expire after a time to live.

>>> clock = FakeClock()
>>> cache: TTLCache[str, int] = TTLCache(maxsize=2, ttl=10.0, clock=clock)
>>> cache.put("a", 1)
>>> cache.get("a")
1
>>> clock.now += 11
>>> cache.get("a") is None
True
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    evictions: int = 0
    expirations: int = 0

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


class FakeClock:
    """A manual clock for tests and doctests."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class TTLCache(Generic[K, V]):
    """At most ``maxsize`` entries; each lives ``ttl`` seconds after it was written."""

    def __init__(self, maxsize: int, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        if maxsize <= 0:
            raise ValueError("maxsize must be positive")
        if ttl <= 0:
            raise ValueError("ttl must be positive")
        self.maxsize = maxsize
        self.ttl = ttl
        self._clock = clock
        self._data: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self.stats = CacheStats()

    def __len__(self) -> int:
        self._purge()
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        entry = self._data.get(key)  # type: ignore[arg-type]
        return entry is not None and entry[0] > self._clock()

    def get(self, key: K, default: V | None = None) -> V | None:
        entry = self._data.get(key)
        if entry is None:
            self.stats.misses += 1
            return default
        expires, value = entry
        if expires <= self._clock():
            del self._data[key]
            self.stats.expirations += 1
            self.stats.misses += 1
            return default
        self._data.move_to_end(key)
        self.stats.hits += 1
        return value

    def put(self, key: K, value: V, ttl: float | None = None) -> None:
        life = self.ttl if ttl is None else ttl
        self._data[key] = (self._clock() + life, value)
        self._data.move_to_end(key)
        while len(self._data) > self.maxsize:
            self._data.popitem(last=False)
            self.stats.evictions += 1

    def get_or_compute(self, key: K, compute: Callable[[K], V]) -> V:
        """The cached value, computing and storing it on a miss."""
        value = self.get(key)
        if value is None:
            value = compute(key)
            self.put(key, value)
        return value

    def pop(self, key: K) -> V | None:
        entry = self._data.pop(key, None)
        return entry[1] if entry is not None else None

    def clear(self) -> None:
        self._data.clear()

    def _purge(self) -> None:
        now = self._clock()
        for key in [k for k, (expires, _) in self._data.items() if expires <= now]:
            del self._data[key]
            self.stats.expirations += 1
