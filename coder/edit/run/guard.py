"""The stream guard: stops a streaming rewrite early when it has plainly gone wrong (loops, drift).

Every check looks only at what the reply added since the last call or at its last lines, so a
long reply costs the same per chunk; copies of the original, however repetitive, are never stopped.
"""

from __future__ import annotations

from collections import deque

from coder.edit.checks.reply import EditRefused

ECHO_WINDOW = 30  # recent lines looked at for a reply repeating its own new lines
ECHO_SHARE = 0.8  # share of them that must be repeats of lines absent from the original


class DriftGuard:
    """Stops a streaming rewrite early when it has plainly gone wrong.

    Two checks over the last completed lines: a *loop* (a long run built from fewer
    distinct lines than any stretch of the original has: small models fall into these
    and would otherwise run to the token limit) is always on; *drift* (nearly every
    recent line absent from the original) is opt-in, since a large requested change
    legitimately produces many new lines.
    """

    def __init__(self, original: str, *, drift: bool = False, window: int = 40, max_novel: float = 0.9,
                 loop_window: int = 24, loop_distinct: int = 3, max_period: int = 16,
                 min_loop_lines: int = 12) -> None:
        lines = [line.strip() for line in original.splitlines() if line.strip()]
        self.original = original
        self.known = set(lines)
        self.max_period = max_period
        self.min_loop_lines = min_loop_lines
        self._original_seq = "\n" + "\n".join(lines) + "\n"  # for "does the original repeat this too?"
        # New lines the reply itself keeps repeating (a loop with variations, a block longer than
        # max_period): counted incrementally over the growing body, so each call costs only new lines.
        self._done = 0
        self._counts: dict[str, int] = {}
        self._echo: deque[bool] = deque(maxlen=ECHO_WINDOW)
        self.drift = drift
        self.window = window
        self.max_novel = max_novel
        self.loop_window = loop_window
        # A file that itself has such a repetitive stretch (a data table) may be copied.
        self.loop_distinct = min(loop_distinct, _least_distinct(lines, loop_window) - 1)

    def check(self, partial_body: str) -> EditRefused | None:
        """The refusal to stop with, or None to keep streaming."""
        # Only the recent lines matter: split from the right so a long reply costs the same per call.
        keep = max(2 * max(self.window, self.loop_window), 4 * self.max_period + self.min_loop_lines) + 2
        pieces = partial_body.rsplit("\n", keep)
        if len(pieces) > keep:
            pieces = pieces[1:]  # the first piece is everything earlier, not one line
        lines = [ln.strip() for ln in pieces[:-1] if ln.strip()]  # the last may be partial
        if len(lines) >= self.loop_window:
            recent = lines[-self.loop_window :]
            distinct = set(recent)
            if len(distinct) <= self.loop_distinct:
                sample = max(distinct, key=len)[:40]
                return EditRefused("loop", f"the reply is looping ({self.loop_window} lines like {sample!r}); "
                                   "stopped early")
        if (loop := self._repeating_block(lines)) is not None or (loop := self._echoing(partial_body)) is not None:
            return loop
        if self.drift and len(lines) >= self.window:
            novel = sum(1 for ln in lines[-self.window :] if ln not in self.known)
            if novel / self.window > self.max_novel:
                return EditRefused("drift", "the rewrite stopped tracking the original file; stopped early")
        return None

    def _repeating_block(self, lines: list[str]) -> EditRefused | None:
        """The recent lines are one block of 1..max_period lines repeated, more often than the original does.

        Catches a loop after ``min_loop_lines`` lines (at least 3 copies), where the distinct-line
        window needs ``loop_window``; a copy of a repetitive original (a table, repeated test
        cases) passes because the same run occurs in the original.
        """
        for period in range(1, self.max_period + 1):
            repeats = max(3, -(-self.min_loop_lines // period))
            span = period * repeats
            if len(lines) < span:
                break
            unit = lines[-period:]
            if any(lines[-span + i] != unit[i % period] for i in range(span - period)):
                continue
            if len(set(unit)) == 1 and period > 1:
                continue  # the same line repeated: period 1 handles it
            # how far back the repetition goes (bounded by the lines kept)
            run = span
            while run + period <= len(lines) and lines[-run - period:-run] == unit:
                run += period
            block = "\n" + "\n".join(lines[-run:]) + "\n"
            if block in self._original_seq:
                continue  # the original repeats this much itself: a faithful copy
            sample = max(unit, key=len)[:40]
            return EditRefused("loop", f"the reply is looping ({run // period} copies of {period} line(s) "
                               f"like {sample!r}); stopped early")
        return None

    def _echoing(self, body: str) -> EditRefused | None:
        """Most recent lines repeat lines the original does not have: the reply loops
        over its own invention (e.g. one function rewritten again and again with small changes)."""
        if len(body) < self._done:  # a different body: start over
            self._done, self._counts = 0, {}
            self._echo.clear()
        end = body.rfind("\n")
        if end >= self._done:
            for raw in body[self._done:end].split("\n"):
                line = raw.strip()
                if not line:
                    continue
                seen = self._counts.get(line, 0)
                self._echo.append(seen >= 1 and line not in self.known)
                self._counts[line] = seen + 1
            self._done = end + 1
        echoes = sum(self._echo)
        if len(self._echo) == ECHO_WINDOW and echoes >= ECHO_SHARE * ECHO_WINDOW:
            return EditRefused("loop", f"the reply is looping ({echoes} of its last {ECHO_WINDOW} lines are new "
                               "lines it already wrote); stopped early")
        return None

    def check_tail(self, text: str, max_period: int = 48, repeats: int = 8) -> EditRefused | None:
        """A loop inside a line (``, x: str, x: str, …``): the tail is one short piece repeated.

        Runs the original also contains (a ``# =====`` rule) are copies, not loops.
        """
        for period in range(1, max_period + 1):
            span = period * repeats
            if len(text) < max(span, 64):
                break
            tail = text[-span:]
            piece = tail[-period:]
            if piece.strip() and tail == piece * repeats and tail not in self.original:
                return EditRefused("loop", f"the reply is looping (repeating {piece[:40]!r}); stopped early")
        return None

    def drifted(self, partial_body: str) -> bool:
        """True when the partial body has drifted from the original (see :meth:`check`)."""
        return self.check(partial_body) is not None or self.check_tail(partial_body) is not None


def _least_distinct(lines: list[str], window: int) -> int:
    """Fewest distinct lines in any ``window`` consecutive lines (a large number if shorter)."""
    if len(lines) < window:
        return window + 1
    counts: dict[str, int] = {}
    for line in lines[:window]:
        counts[line] = counts.get(line, 0) + 1
    least = len(counts)
    for i in range(window, len(lines)):
        counts[lines[i]] = counts.get(lines[i], 0) + 1
        old = lines[i - window]
        counts[old] -= 1
        if not counts[old]:
            del counts[old]
        least = min(least, len(counts))
    return least
