"""A live progress line on stderr for long explorations.

One line, redrawn in place at most every ``interval`` seconds: states stored, the current
depth, the frontier still to expand, and states per second. It is off when the stream is not a
terminal (so logs and pipes stay clean) or when asked. The clock only paces the display and
the rate; it never influences the search.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


class ProgressLine:
    """The progress line; :meth:`update` is cheap to call often, :meth:`close` erases it."""

    def __init__(
        self,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        interval: float = 0.5,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = _is_terminal(self.stream) if enabled is None else enabled
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self._last_draw: float | None = None
        self._width = 0

    def update(self, states: int, depth: int, frontier: int) -> None:
        """Redraw the line if enough time has passed since the last drawing."""
        if not self.enabled:
            return
        now = self.clock()
        if self._last_draw is not None and now - self._last_draw < self.interval:
            return
        self._last_draw = now
        elapsed = now - self.started
        rate = states / elapsed if elapsed > 0 else 0.0
        text = f"explore: {states:,} states, depth {depth}, frontier {frontier:,}, {rate:,.0f} states/s"
        self.stream.write("\r" + text.ljust(self._width))
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        """Erase the line (if one was drawn)."""
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
