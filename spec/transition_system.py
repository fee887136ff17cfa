"""The contract between a model and the explorer: a transition system.

Any model the explorer can check (the CapacityScheduler scenarios, the Spark dispatch model, a
user's own model, the toy model in ``yarnspec.checks.explore.toy``) implements
:class:`TransitionSystem`: initial states, the enabled actions of a state with the state each
leads to, named invariants, and progress properties with their fairness assumptions.

Conventions the explorer relies on:

* A state is immutable and hashable, and equal states are the same state. The explorer stores
  every visited state exactly (there are no hash collisions), so a compact encoding pays: a
  Python ``int`` below 2**30 costs 28 bytes, a tuple of ten small ints 120 bytes.
* An action is a cheap hashable value (a pre-built tuple, say). Its readable text comes from
  :meth:`TransitionSystem.action_label`, called only to write or replay a trace, so no string is
  formatted per transition.
* :meth:`TransitionSystem.successors` enumerates in a fixed order (the explorer records the
  position of the step that reached a state and replays it to rebuild a trace), and any random
  choice of the real system is a separate action, never a hidden draw.
* Every action belongs to a named class (``heartbeat``, ``commit``, ``monitor``, ``clock``...);
  fairness is assumed per class. A model wanting fairness per node or per app gives each its
  own class (``heartbeat@n1``).
* A step that leaves the state unchanged is a stuttering step (as in TLA+): it neither counts
  as taking its class nor makes that class enabled, and a behaviour may stutter for ever in a
  state where no weakly fair class is enabled (a deadlocked state in particular).

A model may also have a ``partition_key(key)`` method (optional, read with :func:`partition_key_of`
like ``first_violation``): the part of a state's key (the state, or its canonical form with
symmetry on) that decides which worker of a parallel search owns the state: a hashable,
deterministic function of the key, routed by its hash (by its fingerprint when hashes differ
between processes; fingerprint mode routes by the stored fingerprint instead). The default is the
key itself; a model whose steps remember answers by a part of the state (the scheduler model's
memo, by what its passes read) does better to return that part, so that the states sharing it
are expanded by one worker, whose memo then answers for all of them. Which worker owns a state
changes no count, verdict or trace, only where the work is done and how evenly it is spread.

Models may inherit from :class:`TransitionSystem` to get the defaults written here (no
symmetry, no invariants, no progress properties, ``str`` labels, one action class).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, Protocol, TypeVar

StateT = TypeVar("StateT", bound=Hashable)
ActionT = TypeVar("ActionT", bound=Hashable)

#: A value ``json.dumps`` accepts (dicts with string keys, lists, strings, numbers, bools, None).
JSONValue = Any


@dataclass(frozen=True)
class Premise(Generic[StateT]):
    """The antecedent of an invariant written as an implication ("for every reservation,
    ..."): ``text`` says it in words (``a reservation exists``), ``holds(state)`` whether it
    holds. The explorer counts the states where it holds; none means the invariant was never
    put to the test (it holds vacuously)."""

    text: str
    holds: Callable[[StateT], bool]


@dataclass(frozen=True)
class Invariant(Generic[StateT]):
    """A named safety property checked on every reachable state.

    ``check(state)`` returns ``None`` when the property holds and otherwise a message saying
    what is wrong in that state (``"n2: used 3 but 2 apps hold it"``). ``premise``, when the
    invariant is an implication, is its antecedent (:class:`Premise`).
    """

    name: str
    check: Callable[[StateT], str | None]
    description: str = ""
    premise: Premise[StateT] | None = None


@dataclass(frozen=True)
class Progress(Generic[StateT]):
    """A progress property ``premise ~> goal`` ("leads to") under weak fairness.

    It holds when, in every fair behaviour, each state satisfying ``premise`` is followed (at
    the same or a later step) by a state satisfying ``goal``. ``premise=None`` means "always",
    which makes the property "always eventually goal" (``[]<>goal``).

    ``fair`` names the action classes assumed weakly fair: if some action of such a class stays
    enabled (with a step that changes the state) from some point on, an action of that class
    is eventually taken. Classes not named may stop for ever (the environment may go quiet),
    so with ``fair`` empty nothing is ever guaranteed to happen.
    """

    name: str
    goal: Callable[[StateT], bool]
    premise: Callable[[StateT], bool] | None = None
    fair: frozenset[str] = frozenset()
    description: str = ""

    @property
    def kind(self) -> str:
        """``"leads-to"`` or ``"always-eventually"``."""
        return "always-eventually" if self.premise is None else "leads-to"

    def describe(self) -> str:
        """One line: the name, the kind and the fairness assumed."""
        fairness = f"under WF({', '.join(sorted(self.fair))})" if self.fair else "with no fairness assumed"
        return f"{self.name} ({self.kind}) {fairness}"

    def triggered(self, state: StateT) -> bool:
        """True when ``state`` starts an obligation: the premise holds and the goal does not."""
        return (self.premise is None or self.premise(state)) and not self.goal(state)


def first_violation(invariants: Sequence[Invariant[StateT]], state: StateT) -> tuple[str, str] | None:
    """The name and message of the first invariant ``state`` violates, or ``None``."""
    for invariant in invariants:
        message = invariant.check(state)
        if message is not None:
            return invariant.name, message
    return None


def violation_check(model: TransitionSystem[StateT, Any]) -> Callable[[StateT], tuple[str, str] | None] | None:
    """What the explorer runs on each new state: :func:`first_violation` over the model's
    invariants, or the model's own ``first_violation(state)`` method when it has one (one call
    instead of one per invariant; it must give the same answer); ``None`` when the model has no
    invariant."""
    invariants = tuple(model.invariants())
    if not invariants:
        return None
    combined: Callable[[StateT], tuple[str, str] | None] | None = getattr(model, "first_violation", None)
    return combined if combined is not None else partial(first_violation, invariants)


def partition_key_of(model: TransitionSystem[Any, Any]) -> Callable[[Hashable], Hashable] | None:
    """The model's ``partition_key(key)`` method (see the module docstring), or ``None`` when it
    has none (a key is then its own partition key)."""
    method: Callable[[Hashable], Hashable] | None = getattr(model, "partition_key", None)
    return method


def leads_to(
    name: str,
    premise: Callable[[StateT], bool],
    goal: Callable[[StateT], bool],
    fair: Iterable[str] = (),
    description: str = "",
) -> Progress[StateT]:
    """``premise ~> goal`` assuming weak fairness of the action classes in ``fair``."""
    return Progress(name, goal, premise, frozenset(fair), description)


def always_eventually(
    name: str, goal: Callable[[StateT], bool], fair: Iterable[str] = (), description: str = ""
) -> Progress[StateT]:
    """``[]<>goal`` (``goal`` holds infinitely often) assuming weak fairness of ``fair``."""
    return Progress(name, goal, None, frozenset(fair), description)


class TransitionSystem(Protocol[StateT, ActionT]):
    """What the explorer needs from a model (see the module docstring for the conventions).

    ``name``, ``variant`` and ``parameters`` identify the model in traces and results, so a
    trace can be replayed on the same model: ``parameters`` is JSON-able (sizes, bounds) and
    ``variant`` names the behaviour variant (``"yarn-8127-check"``; ``""`` when there is one).
    """

    name: str
    variant: str
    parameters: Mapping[str, JSONValue]

    def initial_states(self) -> Iterable[StateT]:
        """The initial states, in a fixed order."""
        ...

    def successors(self, state: StateT) -> Iterable[tuple[ActionT, StateT]]:
        """The enabled actions of ``state``, each with the state it leads to, in a fixed order.

        Returning a list is fastest; an empty result means the state is deadlocked.
        """
        ...

    def action_label(self, action: ActionT) -> str:
        """The readable text of an action, such as ``allocate(a1, n3)``."""
        return str(action)

    def action_class(self, action: ActionT) -> str:
        """The fairness class of an action, such as ``heartbeat`` or ``commit``."""
        return "step"

    def action_kind(self, action: ActionT) -> str:
        """The kind of an action (``heartbeat``, ``commit``), for coverage reports: by default
        its fairness class up to an ``@`` (``heartbeat@n1`` is of kind ``heartbeat``)."""
        return self.action_class(action).partition("@")[0]

    def action_kinds(self) -> Sequence[str]:
        """Every kind the model's actions can have, in a fixed order, so that a coverage report
        can flag kinds never enabled; empty (the default) when the model does not say."""
        return ()

    def canonical(self, state: StateT) -> Hashable:
        """The representative of the state's symmetry class, used when symmetry is on.

        Two states with the same canonical form must be equivalent: permuting interchangeable
        nodes or apps maps one onto the other, and every invariant gives the same verdict on
        both. The default is the state itself (no symmetry).
        """
        return state

    def invariants(self) -> Sequence[Invariant[StateT]]:
        """The safety properties checked on every reachable state."""
        return ()

    def progress(self) -> Sequence[Progress[StateT]]:
        """The progress properties checked over the whole reachable graph."""
        return ()

    def state_json(self, state: StateT) -> JSONValue:
        """A JSON-able picture of the state for traces (a dict of named fields, say)."""
        return state


def kind_of(model: TransitionSystem[Any, ActionT], action: ActionT) -> str:
    """``model.action_kind(action)``, or the default for a model that does not inherit it."""
    method = getattr(model, "action_kind", None)
    return method(action) if method is not None else model.action_class(action).partition("@")[0]


def kinds_of(model: TransitionSystem[Any, Any]) -> Sequence[str]:
    """``model.action_kinds()``, or no kinds for a model that does not inherit it."""
    method = getattr(model, "action_kinds", None)
    return tuple(method()) if method is not None else ()
