"""The one property type every invariant of the specification is a value of.

A :class:`Property` has a name, a one-line summary, its source (the semantics section, seed or
upstream class it comes from) and a predicate over what it judges. Each family of the
specification judges its own subject and reports in its own verdict, and adds what only it
needs by subclassing:

* the scheduler model (:class:`yarnspec.spec.scheduler.invariants.SchedulerInvariant`): a ``SchedulerStep``,
  ``None`` or one message; adds the action kinds that can break a step invariant;
* the preemption round (:class:`yarnspec.spec.preemption.invariants.RoundProperty`): a ``Round``, a list
  of ``Violation`` s; adds the policy rules a property needs to be promised;
* Spark's allocator and dispatch (:mod:`yarnspec.spec.spark.allocator`,
  :mod:`yarnspec.spec.spark.dispatch`): an allocator or a task set, a list of messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Property", "docstring_parts"]

SubjectT = TypeVar("SubjectT")
VerdictT = TypeVar("VerdictT")


@dataclass(frozen=True)
class Property(Generic[SubjectT, VerdictT]):
    """One named property: ``predicate(subject)`` says what is wrong with ``subject`` (``None``
    or an empty list when the property holds).

    >>> at_most_ten = Property("at-most-ten", "a count stays at ten or less", "an example",
    ...                        lambda count: None if count <= 10 else f"{count} is above ten")
    >>> at_most_ten.check(3) is None
    True
    >>> at_most_ten.check(12)
    '12 is above ten'
    """

    name: str
    summary: str
    source: str
    predicate: Callable[[SubjectT], VerdictT]

    def check(self, subject: SubjectT) -> VerdictT:
        """The predicate's verdict on ``subject``."""
        return self.predicate(subject)


def docstring_parts(predicate: Callable[..., object]) -> tuple[str, str]:
    """The summary and source of a predicate whose docstring reads ``SUMMARY Source: SOURCE.``
    (whitespace folded, the source's final full stop dropped).

    >>> def no_negative(count: int) -> str | None:
    ...     '''A count is never negative. Source: an example.'''
    >>> docstring_parts(no_negative)
    ('A count is never negative.', 'an example')
    """
    text = " ".join((predicate.__doc__ or "").split())
    summary, _, source = text.partition(" Source: ")
    return summary, source.rstrip(".")
