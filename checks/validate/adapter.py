"""What ``validate`` talks to: an adapter opens sessions; a session answers calls.

A fault (a crash, a hang, a line that is not JSON, a wrong id, an answer outside the schema,
an exception in a Python adapter) is an :class:`AdapterFault` whose message is one line naming
the request and quoting the offending output. It ends the session; the next ``open()``
starts afresh.
"""

from __future__ import annotations

from typing import Any, Protocol

from yarnspec.spec.contracts.call import Answer


class AdapterFault(Exception):
    """The implementation broke the protocol; the message is one line."""


class StartFault(AdapterFault):
    """The implementation could not even start (no process, a broken ``hello``, the wrong
    contract, an object of the wrong shape): the whole run stops with this one line."""


class Session(Protocol):
    """A live implementation (a process, an object)."""

    def call(self, op: str, input: dict[str, Any]) -> Answer:
        """Send one request; the answer, or :class:`AdapterFault`."""
        ...

    def close(self) -> None:
        """Release the implementation (kill the process)."""
        ...


class Adapter(Protocol):
    """An implementation as named by ``--impl``."""

    label: str

    def open(self) -> Session:
        """A session ready for calls (raises :class:`AdapterFault` if it cannot start)."""
        ...

    def close(self) -> None:
        """End every session (at the end of the run)."""
        ...
