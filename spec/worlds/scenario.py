"""A scenario: a named world with its story, its source and its variants, each with the
property checked and the verdict expected.

A :class:`Scenario` names a world builder (a function of its variant's options returning a
:class:`~yarnspec.impl.scheduler.world.World`), a one-line story, its source (seed, JIRA) and
its :class:`ScenarioVariant` s. Each variant gives the builder's options, the property checked
(:data:`INVARIANTS`, a registered invariant, or a progress property of the scenario's
:class:`~yarnspec.spec.property_catalogue.PropertyCatalogue`), the verdict expected
(an :class:`~yarnspec.spec.outcome.Outcome`: ``holds``, ``violated``, ``not-refuted`` where
the search is bounded, ``vacuous``) and the evidence for it. Every scenario also carries default
explorer bounds and smaller ``fast`` ones (for ``yarnspec check --fast``).

The catalogue of built-in scenarios is :data:`yarnspec.spec.worlds.catalogue.SCENARIOS`, read from the
world files shipped in ``yarnspec/spec/worlds/`` (:mod:`yarnspec.spec.worlds.world_file`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from yarnspec.impl.errors import InputError
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.outcome import EXPECTABLE, Outcome
from yarnspec.spec.property_catalogue import INVARIANTS, PropertyCatalogue
from yarnspec.spec.scheduler.invariants import SchedulerInvariant
from yarnspec.spec.scheduler.model import BUILTIN_PROPERTIES, ModelState, SchedulerModel
from yarnspec.spec.transition_system import JSONValue

__all__ = [
    "INVARIANTS",
    "TITLE_SEPARATOR",
    "EXPECTED",
    "Expected",
    "ExploreBounds",
    "ScenarioVariant",
    "Scenario",
    "ScenarioModel",
]

#: Separates the scenario and the variant in a model's title (``"async-double-commit/pre-8127"``).
TITLE_SEPARATOR = "/"

#: The verdict a variant expects: one of the outcomes of :mod:`yarnspec.spec.outcome`.
Expected = Outcome
#: The outcomes a variant may expect (a world file's ``expect``).
EXPECTED: tuple[Expected, ...] = EXPECTABLE


@dataclass(frozen=True)
class ExploreBounds:
    """How far the explorer goes by default: ``None`` means no bound (exhaustive).
    ``symmetry`` is used for safety only (the explorer turns it off for progress)."""

    max_depth: int | None = None
    max_states: int | None = None
    symmetry: bool = False

    def to_json(self) -> dict[str, JSONValue]:
        """JSON-able form."""
        return {"max_depth": self.max_depth, "max_states": self.max_states, "symmetry": self.symmetry}


@dataclass(frozen=True)
class ScenarioVariant:
    """One way of running a scenario: ``options`` are the world builder's keyword arguments,
    ``property`` the property checked (:data:`INVARIANTS` or a progress property's name),
    ``expected`` its verdict and ``evidence`` one line saying why."""

    name: str
    options: Mapping[str, Any]
    property: str
    expected: Expected
    evidence: str

    def to_json(self) -> dict[str, JSONValue]:
        """JSON-able form."""
        return {
            "name": self.name,
            "options": dict(self.options),
            "property": self.property,
            "expected": self.expected.value,
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class Scenario:
    """A named world with its story, source, variants and default bounds."""

    name: str
    story: str
    source: str
    build: Callable[..., World]
    variants: tuple[ScenarioVariant, ...]
    bounds: ExploreBounds = field(default_factory=ExploreBounds)
    fast: ExploreBounds = field(default_factory=ExploreBounds)
    setup: tuple[str, ...] = ()
    quiet: frozenset[str] = frozenset()
    notes: str = ""
    origin: str = ""
    world_file: str | None = None
    catalogue: PropertyCatalogue = BUILTIN_PROPERTIES

    @property
    def description(self) -> str:
        """The world, the story and the evidence: the world file's ``description``, else the
        world builder's docstring."""
        return self.notes.strip() or (self.build.__doc__ or "").strip()

    def checks_progress(self, variant: ScenarioVariant) -> bool:
        """Whether ``variant`` asks about a progress property (else about invariants)."""
        return self.catalogue.is_progress(variant.property)

    def variant(self, name: str | None, source: str = "<scenarios>", place: str = "variant") -> ScenarioVariant:
        """The variant called ``name`` (the first one when ``None``); an :class:`InputError`
        naming ``source`` and ``place`` and the known variants otherwise."""
        if name is None:
            return self.variants[0]
        for variant in self.variants:
            if variant.name == name:
                return variant
        known = ", ".join(v.name for v in self.variants)
        raise InputError(source, place, f"scenario {self.name} has no variant {name!r}; known: {known}")

    def title(self, variant: ScenarioVariant) -> str:
        """The model's title for one variant, written into traces: ``scenario/variant``."""
        return f"{self.name}{TITLE_SEPARATOR}{variant.name}"

    def world(self, variant: ScenarioVariant) -> World:
        """The world of one variant."""
        return self.build(**variant.options)

    def model(self, variant: ScenarioVariant) -> SchedulerModel:
        """The transition system of one variant; it checks progress only when the variant's
        property is a progress property (and then only that one). A scenario with a ``setup``
        starts where those steps lead; one with ``quiet`` kinds leaves them to nobody."""
        progress = self.checks_progress(variant)
        properties = (variant.property,) if progress else ()
        extra = [self.catalogue.invariants[variant.property]] if variant.property in self.catalogue.invariants else []
        if self.setup or self.quiet:
            return ScenarioModel(
                self.world(variant), self.title(variant), properties, self.setup, self.quiet, self.catalogue, extra
            )
        return SchedulerModel(
            self.world(variant), self.title(variant), progress=progress, properties=properties, catalogue=self.catalogue,
            extra_invariants=extra,
        )  # fmt: skip

    def to_json(self) -> dict[str, JSONValue]:
        """JSON-able form (``yarnspec explore --list --json``)."""
        return {
            "name": self.name,
            "story": self.story,
            "source": self.source,
            "bounds": self.bounds.to_json(),
            "fast": self.fast.to_json(),
            "variants": [v.to_json() for v in self.variants],
            "setup": list(self.setup),
            "quiet": sorted(self.quiet),
            "origin": self.origin,
        }


class ScenarioModel(SchedulerModel):
    """A scheduler model that starts where a fixed ``setup`` leads (action labels played from
    the world's initial state) and whose environment never takes the ``quiet`` action kinds.

    A story that begins in a particular state (the lender holding the whole cluster) starts
    there instead of exploring every way to reach it; leaving environment kinds out (containers
    that never finish by themselves) keeps the world small. Both only remove behaviours, so a
    violation found is a violation of the full world, while "holds" is claimed for this
    environment only.
    """

    def __init__(
        self, world: World, title: str, properties: Sequence[str], setup: Sequence[str], quiet: frozenset[str],
        catalogue: PropertyCatalogue | None = None, extra_invariants: Sequence[SchedulerInvariant] = (),
    ) -> None:  # fmt: skip
        super().__init__(world, title, bool(properties), properties, catalogue, extra_invariants)
        self.quiet = quiet
        (state,) = super().initial_states()
        for index, wanted in enumerate(setup):
            found = [target for action, target in self.successors(state) if self.action_label(action) == wanted]
            if not found:
                raise ValueError(f"{title}: setup[{index}] {wanted!r} is not enabled")
            state = found[0]
        self._initial = state

    def initial_states(self) -> list[ModelState]:
        """The state the setup leads to."""
        return [self._initial]
