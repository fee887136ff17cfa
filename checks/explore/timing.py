"""Where a partitioned search spends its time: per-phase clocks, off unless asked for.

With ``YARNSPEC_EXPLORE_PROFILE=1`` in the environment (or ``profile=True`` given to
:func:`~.parallel.explore_partitioned`) every partition times its phases and the coordinator
prints one table to stderr at the end: per worker, the CPU seconds spent computing successors,
computing keys and owners, in the rest of the expansion loop, encoding outboxes, decoding and
merging them, sorting, checking invariants and committing; the wall seconds spent waiting for
its peers' outboxes (a peer still expanding: the level barrier) and idle between the
coordinator's calls (the coordinator waiting for the slowest partition); and its CPU seconds
in all. The work is timed in CPU seconds of the thread doing it, so that the figures hold on a
machine busy with other jobs (where wall seconds include the time other processes ran).
A thread's CPU clock is read with a system call (about a microsecond), so a profiled run costs
a few percent more CPU. Switched off, a :class:`Clock` costs nothing in the loops:
:meth:`Clock.timed` hands back the function itself.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO, TypeVar

#: The environment variable that switches the clocks on.
PROFILE_VARIABLE = "YARNSPEC_EXPLORE_PROFILE"

#: The phases of a partition, in the order printed.
PHASES = (
    "start", "probe", "successors", "key", "expand other", "encode", "ahead", "wait peers", "merge",
    "sort", "invariants", "commit", "idle",
)  # fmt: skip

F = TypeVar("F", bound=Callable[..., Any])


def profile_requested() -> bool:
    """Whether the environment asks for the clocks (:data:`PROFILE_VARIABLE` set, not ``0``)."""
    return os.environ.get(PROFILE_VARIABLE, "") not in ("", "0")


class Clock:
    """Seconds per phase of one process (CPU seconds of the calling thread, or wall seconds
    for waits); does nothing when not ``enabled``."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.seconds: dict[str, float] = {}
        self._cpu_started = time.process_time()

    def add(self, phase: str, seconds: float) -> None:
        """Count ``seconds`` to ``phase``."""
        self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Count the CPU time of the ``with`` block to phase ``name``."""
        if not self.enabled:
            yield
            return
        started = time.thread_time()
        try:
            yield
        finally:
            self.add(name, time.thread_time() - started)

    def timed(self, name: str, function: F, wall: bool = False) -> F:
        """``function``, counting the CPU time (the wall time with ``wall``: a wait) of every
        call to phase ``name`` (``function`` itself when the clock is off)."""
        if not self.enabled:
            return function
        add, now = self.add, time.perf_counter if wall else time.thread_time

        def timed_call(*args: Any) -> Any:
            started = now()
            try:
                return function(*args)
            finally:
                add(name, now() - started)

        return timed_call  # type: ignore[return-value]

    def report(self) -> dict[str, float] | None:
        """The seconds per phase and the CPU seconds (``"cpu"``) so far; ``None`` when off."""
        if not self.enabled:
            return None
        return {**self.seconds, "cpu": time.process_time() - self._cpu_started}


def print_profile(
    workers: Sequence[dict[str, float] | None], coordinator: dict[str, float], out: TextIO | None = None
) -> None:
    """One table (on ``out``, by default stderr): a row per phase, a column per worker, then the
    coordinator's figures."""
    out = sys.stderr if out is None else out
    shown = [w for w in workers if w is not None]
    if not shown:
        return
    out.write("profile (CPU seconds per phase, wall seconds of the waits; YARNSPEC_EXPLORE_PROFILE):\n")
    out.write(f"  {'phase':<14}" + "".join(f"{'worker ' + str(i):>11}" for i in range(len(shown))) + "\n")
    for name in (*PHASES, "cpu"):
        out.write(f"  {name:<14}" + "".join(f"{w.get(name, 0.0):>11.3f}" for w in shown) + "\n")
    out.write("  coordinator: " + ", ".join(f"{name} {value:.3f}" for name, value in coordinator.items()) + "\n")
