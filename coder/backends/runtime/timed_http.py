"""The httpx transport that records each round trip in :data:`coder.telemetry.timings.RECORDER`.

:func:`coder.backends.runtime.http.make_client` builds clients with it while a command records
its timings (``coder edit``); nothing else loads this module. A round trip ends when the headers
are in, a chat completion's when its stream is closed (the whole reply is the request); the small
body of any other answer is read in the caller's phase.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx

from coder.telemetry import timings


class _Closing(httpx.SyncByteStream):
    """A response body that reports when it is closed."""

    def __init__(self, inner: httpx.SyncByteStream, done: Callable[[], None]) -> None:
        self.inner, self.done = inner, done

    def __iter__(self) -> Iterator[bytes]:
        yield from self.inner

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            self.done()


class TimedTransport(httpx.BaseTransport):
    """``inner`` with every request recorded as a round trip, in its endpoint's phase."""

    def __init__(self, inner: httpx.HTTPTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` through ``inner``, timing it (see the module docstring)."""
        rec = timings.RECORDER
        if rec is None:
            return self.inner.handle_request(request)
        trip = rec.round_trip(request.method, request.url.path)
        entered = rec.enter(trip.charged) if trip.phase != "(thread)" else False
        began = trip.began = timings.clock()
        ended: list[bool] = []

        def done() -> None:  # once: a stream may be closed twice
            if not ended:
                ended.append(True)
                trip.seconds = timings.clock() - began
                if entered:
                    rec.leave(trip.charged)

        try:
            response = self.inner.handle_request(request)
        except BaseException:
            done()
            raise
        if timings.phase_of(trip.path) != timings.REQUEST:
            done()  # a chat completion (a plan's on a worker thread too) lasts until its stream is closed
        else:
            assert isinstance(response.stream, httpx.SyncByteStream)
            response.stream = _Closing(response.stream, done)
        return response

    def close(self) -> None:
        """Close ``inner``'s connections."""
        self.inner.close()
