"""The properties a world can be asked about, and how another project adds its own.

A :class:`ProgressProperty` is ``premise ~> goal`` over the scheduler model's states under weak
fairness of named action classes; the model's own are ``reservation-progress`` and
``guarantee-progress`` (:data:`yarnspec.spec.scheduler.model.PROGRESS_PROPERTIES`). A
registered invariant is a :class:`~yarnspec.spec.scheduler.invariants.SchedulerInvariant`, the one
type of the catalogue's invariants (a state invariant, or a step invariant naming the action
kinds that can break it), checked together with the whole catalogue.

A :class:`PropertyCatalogue` is what a world file's questions may name: an explicit, immutable
value passed to :func:`yarnspec.spec.worlds.world_file.load_world`, never a registry kept in the
package. ``yarnspec`` builds the installed one from the ``yarnspec.properties`` entry points
(:mod:`yarnspec.checks.worlds.plugins`); in Python, :meth:`PropertyCatalogue.with_properties` adds
properties to the built-in catalogue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from yarnspec.impl.errors import InputError
from yarnspec.impl.scheduler.actions import fair_classes
from yarnspec.impl.scheduler.state import SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.property_guard import guarded
from yarnspec.spec.scheduler.invariants import STATE_INVARIANTS, STEP_INVARIANTS, SchedulerInvariant

__all__ = ["INVARIANTS", "ProgressProperty", "PropertyCatalogue", "Registered", "StatePredicate"]

#: The property name standing for every invariant of the catalogue (state and step invariants).
INVARIANTS = "invariants"

StatePredicate = Callable[[World, SchedulerState], bool]


@dataclass(frozen=True)
class ProgressProperty:
    """``premise ~> goal``: every state where ``premise`` holds is followed by one where
    ``goal`` holds (``goal`` ``None``: ``not premise``), in every behaviour that is weakly fair
    to the action classes of ``fairness`` (``heartbeat`` stands for every node's heartbeat;
    other classes are action kinds: ``commit``, ``monitor``, ``tick``, ``ask``, ...; ``None``,
    the default: the scheduler's own steps, every kind the action table marks weakly fair).
    ``description`` is one line; ``source`` says where the property comes from."""

    name: str
    premise: StatePredicate
    goal: StatePredicate | None = None
    fairness: tuple[str, ...] | None = None
    description: str = ""
    source: str = ""

    def fair_classes(self, world: World) -> frozenset[str]:
        """The action classes assumed fair in ``world`` (``heartbeat`` per node)."""
        if self.fairness is None:
            return fair_classes(world)
        classes = set(self.fairness) - {"heartbeat"}
        if "heartbeat" in self.fairness:
            classes |= {f"heartbeat@{n}" for n in range(len(world.nodes))}
        return frozenset(classes)

    def goal_holds(self, world: World, state: SchedulerState) -> bool:
        """Whether the goal holds in ``state`` (the premise's negation when no goal is given)."""
        if self.goal is None:
            return not self.premise(world, state)
        return self.goal(world, state)


Registered = ProgressProperty | SchedulerInvariant


@dataclass(frozen=True)
class PropertyCatalogue:
    """The progress properties and the extra invariants questions may name, by name.

    The built-in catalogue with a property of one's own, which a world file's questions may
    then name (:func:`yarnspec.spec.worlds.world_file.load_world`'s ``properties``):

    >>> from yarnspec.spec.scheduler.model import BUILTIN_PROPERTIES
    >>> am_progress = ProgressProperty(
    ...     "am-progress",
    ...     premise=lambda world, state: any(app is not None and app.live and app.asks[0] > 0 for app in state.apps),
    ...     description="a submitted application's master container is eventually allocated",
    ... )
    >>> mine = BUILTIN_PROPERTIES.with_properties([am_progress])
    >>> mine.names()
    ['invariants', 'reservation-progress', 'guarantee-progress', 'am-progress']
    >>> mine.with_properties([am_progress])
    Traceback (most recent call last):
    ...
    yarnspec.impl.errors.InputError: <properties>: property name 'am-progress' is already taken
    """

    progress: Mapping[str, ProgressProperty]
    invariants: Mapping[str, SchedulerInvariant] = field(default_factory=dict)

    def names(self) -> list[str]:
        """Every name a question may give, ``invariants`` first."""
        return [INVARIANTS, *self.progress, *self.invariants]

    def with_properties(
        self, items: Iterable[Registered], source: str = "<properties>", place: str = ""
    ) -> PropertyCatalogue:
        """This catalogue and ``items`` (their code :func:`~yarnspec.spec.property_guard.guarded`:
        an exception in it is a :class:`~yarnspec.spec.property_guard.PropertyRaised`); a name already taken (by a property, the invariant
        catalogue or ``invariants``) or an item of another type is an :class:`InputError`."""
        progress = dict(self.progress)
        invariants = dict(self.invariants)
        taken = {
            INVARIANTS,
            *progress,
            *invariants,
            *(i.name for i in STATE_INVARIANTS),
            *(i.name for i in STEP_INVARIANTS),
        }
        for item in items:
            if not isinstance(item, (ProgressProperty, SchedulerInvariant)):
                raise InputError(
                    source, place, f"expected a ProgressProperty or an Invariant, got {type(item).__name__}"
                )
            if item.name in taken:
                raise InputError(source, place, f"property name {item.name!r} is already taken")
            taken.add(item.name)
            if isinstance(item, ProgressProperty):
                goal = None if item.goal is None else guarded(item.name, item.goal)
                progress[item.name] = replace(item, premise=guarded(item.name, item.premise), goal=goal)
            else:
                invariants[item.name] = replace(item, predicate=guarded(item.name, item.predicate))
        return PropertyCatalogue(progress, invariants)

    def is_progress(self, name: str) -> bool:
        """Whether ``name`` is a progress property of the catalogue."""
        return name in self.progress

    def check_name(self, name: str, source: str, place: str) -> None:
        """Nothing when a question may name ``name``; an :class:`InputError` listing the known
        names otherwise."""
        if name not in self.names():
            raise InputError(source, place, f"unknown property {name!r}; known: {', '.join(self.names())}")
