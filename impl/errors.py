"""The one error type for bad input anywhere in yarnspec.

Every fault in a user's file (configuration XML, case file, scenario, plugin, notation string)
is raised as an :class:`InputError` naming the file, the place in it and the fault, so the CLI
can print it as one line and exit non-zero instead of showing a traceback.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input: ``source`` is the file (or a label such as ``<qdata>``), ``place`` where in it
    (a property name, a JSON path, a column), ``fault`` what is wrong."""

    def __init__(self, source: str, place: str, fault: str) -> None:
        self.source = source
        self.place = place
        self.fault = fault
        where = ": ".join(part for part in (source, place) if part)
        super().__init__(f"{where}: {fault}" if where else fault)


class NotModelled(Exception):
    """A feature of the real system that this model does not cover (for example intra-queue
    preemption). Raised instead of giving a silently wrong answer; the message names the
    feature and the setting that asked for it."""
