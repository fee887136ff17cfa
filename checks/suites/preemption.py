"""The preemption property suite: every registered invariant on generated rounds.

:func:`run` generates ``examples`` scenarios with :func:`yarnspec.checks.suites.strategies.generate_scenario`
(the generator behind the Hypothesis strategies) from a seeded random source: scenario ``i``
of seed ``s`` is ``scenario_at(s, i)``, the same on every machine and in every process.
It plays each scenario's rounds through ``edit_schedule`` (one policy state carried from round
to round, the clock advancing) and checks every property of
:data:`yarnspec.spec.preemption.invariants.PROPERTIES` that the scenario's policy variant promises, on
every round. It reports per property how many rounds were checked, held and violated, and the
first counterexample. The pytest property tests use the same :func:`play_rounds` and
:func:`paths_reached`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from yarnspec.checks.suites.strategies import PreemptionScenario, RandomChooser, generate_scenario
from yarnspec.impl.errors import InputError
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.preemption.result import PolicyState
from yarnspec.impl.resources import total
from yarnspec.spec.preemption.invariants import PROPERTIES, Round, Violation, leaf_of, round_budget

#: The name of the suite's own row: rounds that raised instead of returning a result.
RUNS = "edit_schedule_runs"


@dataclass(frozen=True)
class PropertyOutcome:
    """One property's tally over the suite: rounds checked, held, violated, and the first
    violation with the scenario that produced it (empty when none)."""

    name: str
    summary: str
    checked: int
    held: int
    violated: int
    counterexample: str = ""


def scenario_at(seed: int, index: int) -> PreemptionScenario:
    """Scenario ``index`` of the suite run with ``seed`` (to replay a reported counterexample)."""
    return generate_scenario(RandomChooser(f"{seed}/{index}"))


def play_rounds(scenario: PreemptionScenario) -> list[Round]:
    """Run ``edit_schedule`` at every time of the scenario's clock on its snapshot, handing
    each round's policy state to the next; one :class:`Round` per call."""
    state = PolicyState()
    rounds = []
    for now in scenario.clock:
        result = edit_schedule(scenario.snapshot, scenario.config, scenario.calculator, now, state)
        rounds.append(Round(scenario.snapshot, scenario.config, scenario.calculator, result, prior=state))
        state = result.state
    return rounds


def paths_reached(rnd: Round) -> set[str]:
    """Labels of the interesting behaviours one round shows (for ``hypothesis.event`` and the
    suite's coverage): preemption at all, AM / reserved / ignore-exclusivity victims, a binding
    budget, the dead zone, each selector kind choosing, DRF, and each event kind."""
    snapshot, result, calc = rnd.snapshot, rnd.result, rnd.calculator
    reached: set[str] = set()
    selected = result.selected
    if selected:
        reached.add("preemption happened")
        if calc.name == "dominant":
            reached.add("DRF preemption")
        if rnd.config.natural_termination_factor < 1:
            reached.add("natural termination factor < 1 with preemption")
    for container in selected:
        if container.is_am:
            reached.add("AM container taken")
        if container.reserved:
            reached.add("reserved container taken")
        if container.label != snapshot.node_partition(container):
            reached.add("ignore-exclusivity container taken")
    for selector in result.selectors:
        kind = selector.name.lower()
        if selector.selected and "reserved" in kind:
            reached.add("reserved selector chose")
        if selector.selected and "balance" in kind:
            reached.add("balance selector chose")
        for (queue, _partition), target in selector.targets.items():
            info = snapshot.queues.get(queue)
            if info is None or not info.leaf or info.preemption_disabled:
                continue
            if calc.any_major_positive(target.to_be_preempted) and not calc.any_major_positive(target.to_obtain):
                reached.add("dead zone")
    remaining = round_budget(snapshot, rnd.config) - total(c.resource for c in selected)
    chosen = {c.container_id for c in selected}
    wanting = {
        (queue, partition)
        for s in result.selectors
        for (queue, partition), t in s.targets.items()
        if calc.any_major_positive(t.to_obtain)
    }
    for container in snapshot.containers:
        key = (leaf_of(snapshot, container), snapshot.node_partition(container))
        if container.container_id not in chosen and key in wanting and not calc.fits_in(container.resource, remaining):
            reached.add("budget binding")
            break
    for event in result.events:
        reached.add(f"event {event.kind.value}")
    if rnd.config.observe_only:
        reached.add("observe-only round")
    return reached


def describe(scenario: PreemptionScenario) -> str:
    """A compact, complete-enough account of a scenario for a counterexample report."""
    snapshot = scenario.snapshot
    default = PreemptionConfig()
    changed = [
        f"{f.name}={getattr(scenario.config, f.name)!r}"
        for f in fields(PreemptionConfig)
        if getattr(scenario.config, f.name) != getattr(default, f.name)
    ]
    lines = [
        f"calculator {scenario.calculator.name}; rounds at {list(scenario.clock)} ms; "
        f"config: {', '.join(changed) or 'defaults'}",
        "partitions: "
        + ", ".join(
            f"{name!r}={p.resource}{'' if p.exclusive else ' (non-exclusive)'}"
            for name, p in snapshot.partitions.items()
        ),
    ]
    for path in snapshot.preorder():
        queue = snapshot.queues[path]
        flags = " preemption-disabled" if queue.preemption_disabled else ""
        for name in snapshot.partitions:
            f = queue.at(name)
            if f.used.is_zero() and f.pending.is_zero() and f.guaranteed.is_zero():
                continue
            lines.append(
                f"  {path} [{name!r}] guaranteed {f.guaranteed} max {f.maximum} used {f.used} "
                f"pending {f.pending} reserved {f.reserved}{flags}"
            )
    for container in snapshot.containers:
        kind = "AM" if container.is_am else ("reserved" if container.reserved else "")
        lines.append(
            f"  {container.container_id} {leaf_of(snapshot, container)} on {container.node} {container.resource} "
            f"prio {container.priority} label {container.label!r} {kind}".rstrip()
        )
    return "\n".join(lines)


@dataclass
class _Tally:
    checked: int = 0
    violated: int = 0
    first: str = ""

    def record(self, violations: Sequence[Violation], where: str, scenario: PreemptionScenario) -> None:
        self.checked += 1
        if violations:
            self.violated += 1
            if not self.first:
                self.first = f"{where}: {violations[0].message}\n{describe(scenario)}"


def run(examples: int, seed: int) -> list[PropertyOutcome]:
    """Check every registered property on ``examples`` generated scenarios, deterministically
    from ``seed``; one outcome per property, preceded by the suite's own row (:data:`RUNS`:
    rounds that raised an exception count as violations there). A property is checked on the
    rounds whose policy variant promises it. A counterexample names its scenario as
    ``scenario_at(seed, index)``.

    Raises :class:`InputError` for a non-positive ``examples`` or a negative ``seed``.
    """
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 1:
        raise InputError("preemption suite", "examples", f"expected a whole number >= 1, found {examples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError("preemption suite", "seed", f"expected a whole number >= 0, found {seed!r}")
    tallies = {name: _Tally() for name in (RUNS, *PROPERTIES)}
    for index in range(examples):
        generated = scenario_at(seed, index)
        label = f"scenario_at({seed}, {index})"
        try:
            rounds = play_rounds(generated)
        except Exception as exc:  # a crash is reported as the suite's own violation, not raised
            tallies[RUNS].record([Violation(RUNS, f"{type(exc).__name__}: {exc}")], label, generated)
            continue
        for number, rnd in enumerate(rounds):
            where = f"{label}, round {number} at {rnd.result.now_ms} ms"
            tallies[RUNS].record([], where, generated)
            for name, prop in PROPERTIES.items():
                if prop.promised(rnd.config):
                    tallies[name].record(prop.check(rnd), where, generated)
    summaries = {RUNS: "edit_schedule returns a result for every generated round"}
    summaries.update({name: prop.summary for name, prop in PROPERTIES.items()})
    return [
        PropertyOutcome(name, summaries[name], t.checked, t.checked - t.violated, t.violated, t.first)
        for name, t in tallies.items()
    ]
