"""A live progress line on stderr for long explorations.

One line, redrawn in place at most every ``interval`` seconds: states stored, the current
depth, the frontier still to expand, and states per second. When the stream is not a terminal
the line is instead written as a plain log line every ``log_interval`` seconds (when one is
given; otherwise nothing is written, so pipes stay clean), so a long run in CI shows it is
alive (``yarnspec explore`` gives 10 s: the first line comes 10 s in). The environment variable
``YARNSPEC_PROGRESS_EVERY`` (seconds, a decimal number above 0), when set, replaces that log
interval; it exists for tests, which run a subprocess with a pipe for stderr and a tiny interval.
The clock only paces the display and the rate; it never influences the search.
"""

from __future__ import annotations

import math
import os
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
        log_interval: float | None = None,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        log_interval = log_interval_from_environment(log_interval)
        terminal = _is_terminal(self.stream)
        self.log = enabled is None and not terminal and log_interval is not None
        self.enabled = (terminal or self.log) if enabled is None else enabled
        self.interval = log_interval if self.log and log_interval is not None else interval
        self.clock = clock
        self.started = clock()
        self._last_draw: float | None = self.started if self.log else None  # a log line only after an interval
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
        if self.log:
            self.stream.write(f"{text}, {elapsed:,.0f} s\n")
            self.stream.flush()
            return
        self.stream.write("\r" + text.ljust(self._width))
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        """Erase the line (if one was drawn)."""
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


#: The environment variable that replaces the log interval (for tests).
PROGRESS_EVERY_VARIABLE = "YARNSPEC_PROGRESS_EVERY"


def log_interval_from_environment(log_interval: float | None) -> float | None:
    """``log_interval``, or the value of ``YARNSPEC_PROGRESS_EVERY`` when that is set (and is a
    number above 0: anything else is ignored, the variable being a test hook, not a user input)."""
    if log_interval is None:
        return None
    text = os.environ.get(PROGRESS_EVERY_VARIABLE)
    if text is None:
        return log_interval
    try:
        value = float(text)
    except ValueError:
        return log_interval
    return value if math.isfinite(value) and value > 0 else log_interval


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
