"""httpx clients without the per-client TLS setup: building one loads the CA bundle (10-50 ms, more on a busy box).

coder talks to loopback ``http://`` servers almost always and builds short-lived clients for
/metrics, /props and /tokenize around every request; each default ``httpx.Client`` parses the
whole certificate bundle even when no TLS is ever used. Plain-HTTP clients get no verification
context (nothing to verify); ``https://`` ones share one context per process.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

    import httpx


@functools.cache
def _tls() -> ssl.SSLContext:
    import httpx

    return httpx.create_ssl_context()


def make_client(base_url: str, *, headers: dict[str, str] | None = None, timeout: float = 10.0,
                keepalive: int | None = None) -> httpx.Client:
    """An ``httpx.Client`` for ``base_url``; TLS verification on for https, no TLS setup for http."""
    import httpx  # deferred: ~0.1-0.2 s of import the TUI's first paint does not need

    from coder.telemetry import timings

    verify: ssl.SSLContext | bool = _tls() if base_url.startswith("https:") else False
    limits = httpx.Limits(max_keepalive_connections=keepalive) if keepalive is not None else httpx.Limits()
    transport = None
    if timings.RECORDER is not None:  # a command that reports its timings: every round trip is one of them
        from coder.backends.runtime.timed_http import TimedTransport

        transport = TimedTransport(httpx.HTTPTransport(verify=verify, limits=limits))
    return httpx.Client(base_url=base_url, headers=headers, timeout=timeout, verify=verify, limits=limits,
                        transport=transport)


def read_capped(response: httpx.Response, limit: int) -> bytes:
    """At most ``limit`` bytes of a streamed ``response``'s body: the rest is never read into memory."""
    out = bytearray()
    for data in response.iter_bytes():
        out += data
        if len(out) >= limit:
            break
    return bytes(out[:limit])
