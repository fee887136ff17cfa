"""A registered property whose code raises: one :class:`PropertyRaised` naming the property
and the exception, never a traceback.

:meth:`yarnspec.spec.property_catalogue.PropertyCatalogue.with_properties` wraps the code of
every property another project registers (an invariant's predicate, a progress property's
premise and goal) with :func:`guarded`. The explorer says where the search was when it raised
(:meth:`PropertyRaised.at`: the depth of the state, the step of a trace), and the command line
prints it as one line with exit 2: the property is bad input, not a verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from yarnspec.impl.errors import InputError

P = ParamSpec("P")
R = TypeVar("R")


class PropertyRaised(InputError):
    """The code of registered property ``property_name`` raised ``error`` (its type and
    message, on one line); ``place`` says where the search was (empty until the explorer
    knows)."""

    def __init__(self, property_name: str, error: str, place: str = "") -> None:
        super().__init__(f"property {property_name}", place, f"raised {error}")
        self.property_name = property_name
        self.error = error

    def at(self, place: str) -> PropertyRaised:
        """The same failure, placed (``state at depth 3``); a placed one keeps its place."""
        return self if self.place else PropertyRaised(self.property_name, self.error, place)


def guarded(name: str, function: Callable[P, R]) -> Callable[P, R]:
    """``function`` (a registered property's code) raising :class:`PropertyRaised` instead of
    whatever it raises."""

    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except PropertyRaised:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of someone else's code
            text = " ".join(str(exc).split())
            raise PropertyRaised(name, f"{type(exc).__name__}: {text}" if text else type(exc).__name__) from None

    call.__doc__ = function.__doc__
    return call
