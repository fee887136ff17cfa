"""Every invariant of ``spec/preemption/invariants.py`` reports a hand-built round result that breaks it,
and holds on a correct one: no invariant is vacuous.

The cluster: one partition of 100 memory / 100 vcores on two nodes; root.a (50%) uses 80 in
eight containers of 10 (its first is the AM), root.b (30%) uses nothing and asks for 40,
root.c (20%, preemption disabled) uses 20. The correct round, worked by hand from semantics
A.5-A.8: a starts at 50, c at 20, b at 0 and is offered round(30 x 30/80) = 11, then 7, 5, 3,
2, 1 (29 in all) until its rounded offer is 0 and it drops out; the last 1 goes to a. So the
ideals are a 51, b 29, c 20; a must give 29, which its three newest containers of 10 cover
(the third crosses by 1). The round takes them and marks them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from yarnspec.checks.suites.strategies import QueueShape, build_snapshot
from yarnspec.impl.calculator import DefaultCalculator, DominantCalculator, ResourceCalculator
from yarnspec.impl.cluster import ROOT, Application, ClusterSnapshot, Container, ContainerId, Node
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.preemption.result import (
    EventType,
    PolicyState,
    PreemptionEvent,
    QueueTarget,
    RoundResult,
    SelectorResult,
)
from yarnspec.impl.resources import ZERO, Resource
from yarnspec.spec.preemption.invariants import PROPERTIES, Round, check_round, round_budget

A, B, C = "root.a", "root.b", "root.c"
CONFIG = PreemptionConfig(total_preemption_per_round=1.0, natural_termination_factor=1.0, max_wait_before_kill_ms=10000)


def r(memory: int, vcores: int | None = None) -> Resource:
    return Resource.of(memory, memory if vcores is None else vcores)


def make_snapshot(am_percent: float = 0.0, a_sizes: tuple[int, ...] = (10,) * 8, killable: int = 0) -> ClusterSnapshot:
    """The cluster of the module docstring, containers placed first-fit; ``a_sizes``: the
    memory (= vcores) of a's containers, oldest first; ``killable``: how many of a's oldest
    non-AM containers the scheduler already marked killable."""
    shapes = [
        QueueShape(ROOT, children=(A, B, C)),
        QueueShape(A, capacity={"": 50}, max_am_percent=am_percent),
        QueueShape(B, capacity={"": 30}),
        QueueShape(C, capacity={"": 20}, disable_preemption=True),
    ]
    nodes = [Node("n0", "", r(50)), Node("n1", "", r(50))]
    containers = [Container(ContainerId(2, 1), C, "n0", r(10)), Container(ContainerId(2, 2), C, "n1", r(10))]
    free = {"n0": 40, "n1": 40}

    for number, size in enumerate(a_sizes, start=1):
        node = next(n for n in free if free[n] >= size)
        free[node] -= size
        is_am = number == 1
        containers.append(
            Container(
                ContainerId(1, number),
                A,
                node,
                r(size),
                priority=0 if is_am else 1,
                is_am=is_am,
                killable=2 <= number <= 1 + killable,
            )
        )
    apps = [Application(1, A), Application(2, C)]
    return build_snapshot([("", True)], nodes, shapes, apps, containers, demand={(B, ""): r(40)})


SNAPSHOT = make_snapshot()


def container(snapshot: ClusterSnapshot, app: int, number: int) -> Container:
    return next(c for c in snapshot.containers if c.container_id == ContainerId(app, number))


def targets(
    snapshot: ClusterSnapshot, ideals: dict[str, Resource], to_obtain: Resource = r(29)
) -> dict[tuple[str, str], QueueTarget]:
    """Targets with the given ideals (root's is its guarantee unless given)."""
    ideals = {ROOT: snapshot.queues[ROOT].at("").guaranteed, **ideals}
    found = {}
    for path, ideal in ideals.items():
        f = snapshot.queues[path].at("")
        found[(path, "")] = QueueTarget(
            path,
            "",
            f.guaranteed,
            f.used,
            ideal,
            ZERO,
            ZERO,
            (f.used - ideal).clamp_min_zero(),
            to_obtain if path == A else ZERO,
        )
    return found


CORRECT_IDEALS = {A: r(51), B: r(29), C: r(20)}


def make_round(
    selected: list[tuple[int, int]] | None = None,
    *,
    snapshot: ClusterSnapshot = SNAPSHOT,
    config: PreemptionConfig = CONFIG,
    calc: ResourceCalculator | None = None,
    ideals: dict[str, Resource] | None = None,
    now: int = 0,
    prior: PolicyState | None = None,
    events: list[PreemptionEvent] | None = None,
    extra_selectors: tuple[SelectorResult, ...] = (),
    budget: Resource | None = None,
) -> Round:
    """A round whose FIFO selector takes ``selected`` (``(app, number)`` pairs; default a's
    three newest) and marks each newly at ``now`` (unless ``events`` is given)."""
    chosen = [container(snapshot, *key) for key in (selected if selected is not None else [(1, 8), (1, 7), (1, 6)])]
    fifo = SelectorResult(
        "fifo", config.max_wait_before_kill_ms, targets(snapshot, ideals or CORRECT_IDEALS), tuple(chosen)
    )
    prior = prior or PolicyState()
    if events is None:
        events = [PreemptionEvent(EventType.MARK_CONTAINER_FOR_PREEMPTION, c, "fifo") for c in chosen]
    marks = dict(prior.marks)
    marks.update({e.container_id: now for e in events if e.kind is EventType.MARK_CONTAINER_FOR_PREEMPTION})
    result = RoundResult(
        now_ms=now,
        budget=budget if budget is not None else round_budget(snapshot, config),
        selectors=(fifo, *extra_selectors),
        events=tuple(events),
        state=PolicyState(marks=marks),
    )
    return Round(snapshot, config, calc or DefaultCalculator(), result, prior=prior)


def reported(rnd: Round, name: str) -> list[str]:
    return [v.message for v in PROPERTIES[name].check(rnd)]


# --------------------------------------------------------------------------------------------
# The correct round, and boundary cases that must still pass.


def test_the_correct_round_passes_every_property() -> None:
    assert {n: v for n, v in check_round(make_round()).items() if v} == {}


def test_the_correct_round_passes_with_dominant_resource_fairness() -> None:
    assert {n: v for n, v in check_round(make_round(calc=DominantCalculator())).items() if v} == {}


def test_the_correct_round_is_what_the_reference_policy_decides() -> None:
    """The hand-worked round of the module docstring agrees with ``edit_schedule``."""
    result = edit_schedule(SNAPSHOT, CONFIG, DefaultCalculator(), 0)
    (fifo,) = result.selectors
    assert [c.container_id for c in fifo.selected] == [ContainerId(1, n) for n in (8, 7, 6)]
    assert {q: fifo.targets[(q, "")].ideal.memory for q in (A, B, C)} == {
        q: i.memory for q, i in CORRECT_IDEALS.items()
    }


def test_the_last_container_may_cross_the_floor() -> None:
    """a keeps 51 of 80, so 29 is asked: the third container of 10 crosses the floor by 1
    (allowed, A.8); a fourth would be past it with all but the last (``break_floor``)."""
    assert reported(make_round([(1, 8), (1, 7), (1, 6)]), "guarantee_floor") == []


def test_overshoot_by_the_last_container_is_allowed() -> None:
    """Containers of 20 against 29 to obtain: the second one is taken with 9 still to go and
    leaves a at 40, under its keep of 51 (A.8); a third one would not be."""
    snapshot = make_snapshot(a_sizes=(20, 20, 20, 20))
    assert reported(make_round([(1, 4), (1, 3)], snapshot=snapshot), "guarantee_floor") == []
    assert reported(make_round([(1, 4), (1, 3), (1, 2)], snapshot=snapshot), "guarantee_floor") != []


# --------------------------------------------------------------------------------------------
# One breaking result per property.


def break_budget() -> Round:
    """Budget 100 x 0.2 = 20; three containers of 10 selected."""
    return make_round(config=replace(CONFIG, total_preemption_per_round=0.2))


def break_budget_report() -> Round:
    """The selection fits, but the result claims a budget other than cluster x total."""
    return make_round(config=replace(CONFIG, total_preemption_per_round=0.5), budget=r(100))


def break_floor() -> Round:
    """Four containers (40) taken where a keeps 51 of 80: without the last, 30 is already not
    below used - keep = 29."""
    return make_round([(1, 8), (1, 7), (1, 6), (1, 5)])


def break_floor_by_ideal_below_guarantee() -> Round:
    """The selector claims ideal 10 for a; keep is still min(used + pending, guaranteed) = 50."""
    return make_round([(1, 8), (1, 7), (1, 6), (1, 5), (1, 4)], ideals={A: r(10), B: r(70), C: r(20)})


def break_floor_dominant() -> Round:
    """DRF: every resource type of a is taken past the floor."""
    return make_round([(1, 8), (1, 7), (1, 6), (1, 5), (1, 4)], calc=DominantCalculator())


def break_selected_once_across_selectors() -> Round:
    twice = SelectorResult("balance", CONFIG.max_wait_before_kill_ms, {}, (container(SNAPSHOT, 1, 8),))
    return make_round(extra_selectors=(twice,))


def break_selected_once_within_selector() -> Round:
    return make_round([(1, 8), (1, 8)])


def break_selection_unknown() -> Round:
    ghost = Container(ContainerId(1, 99), A, "n0", r(10))
    rnd = make_round([(1, 8)])
    fifo = replace(rnd.result.selectors[0], selected=(ghost,))
    return replace(rnd, result=replace(rnd.result, selectors=(fifo,)))


def break_selection_killable() -> Round:
    """Container 1_2 is already killable (lazy preemption); selecting it again is wrong (A.8.2b)."""
    lazy = CONFIG.replace(lazy_preemption_enabled=True)
    return make_round([(1, 8), (1, 2)], snapshot=make_snapshot(killable=1), config=lazy)


def break_disabled_selected() -> Round:
    """root.c is preemption-disabled; one of its containers is selected."""
    return make_round([(1, 8), (2, 2)])


def break_disabled_event() -> Round:
    """Nothing of root.c is selected, but a kill-reserved event names its container."""
    event = PreemptionEvent(EventType.KILL_RESERVED_CONTAINER, container(SNAPSHOT, 2, 2), "fifo")
    return make_round([(1, 8)], events=[event])


def break_ideal_parent() -> Round:
    """Children's ideals 60 + 30 + 20 = 110 under root's 100 (starting assignments 50 + 0 + 20)."""
    return make_round(ideals={A: r(60), B: r(30), C: r(20)})


def break_root_ideal() -> Round:
    """Root's ideal must be its guarantee (100)."""
    return make_round(ideals={ROOT: r(90), **CORRECT_IDEALS})


def break_ideal_partition() -> Round:
    """Leaves' ideals add up to 120 in a partition of 100 (root's target withheld, so only the
    partition bound can see it)."""
    rnd = make_round(ideals={A: r(60), B: r(40), C: r(20)})
    fifo = rnd.result.selectors[0]
    kept = {k: t for k, t in fifo.targets.items() if k[0] != ROOT}
    return replace(rnd, result=replace(rnd.result, selectors=(replace(fifo, targets=kept),)))


def two_queue_round(
    a: QueueShape,
    b: QueueShape,
    used: dict[str, list[Container]],
    ideals: dict[str, Resource],
    demand: dict[str, Resource] | None = None,
) -> Round:
    """A round over root -> a, b on one node of 100 whose FIFO selector reports ``ideals``
    (root's is its guarantee) and selects nothing."""
    snapshot = build_snapshot(
        [("", True)],
        [Node("n0", "", r(100))],
        [QueueShape(ROOT, children=(a.path, b.path)), a, b],
        [Application(1, a.path), Application(2, b.path)],
        [c for cs in used.values() for c in cs],
        demand={(q, ""): d for q, d in (demand or {}).items()},
    )
    fifo = SelectorResult("fifo", CONFIG.max_wait_before_kill_ms, targets(snapshot, ideals, ZERO), ())
    return Round(snapshot, CONFIG, DefaultCalculator(), RoundResult(0, r(100), (fifo,), (), PolicyState()))


def zero_guarantee_round(z_ideal: int) -> Round:
    """root.a (100%) uses 30 and wants nothing; root.z (0%) uses 10 and asks for 50: the
    weighted pass leaves 70, the zero-guarantee pass starts z at 0 (A.5 step 3)."""
    a, z = QueueShape("root.a", capacity={"": 100}), QueueShape("root.z", capacity={"": 0})
    used = {
        "a": [Container(ContainerId(1, 1), a.path, "n0", r(30))],
        "z": [Container(ContainerId(2, 1), z.path, "n0", r(10))],
    }
    return two_queue_round(a, z, used, {a.path: r(30), z.path: r(z_ideal)}, demand={z.path: r(50)})


def break_ideal_zero_guarantee_pass() -> Round:
    """z gets 80 in the zero-guarantee pass: 30 + 80 is over root's 100."""
    return zero_guarantee_round(80)


def untouchable_round(b_ideal: int) -> Round:
    """root.a (50%, preemption disabled) uses 90 of which 10 reserved (counted in use, A.2);
    root.b (50%) uses 20 and asks for 40. a starts at 50 + untouchable 40, b at 20: 110 > 100
    before any offer, so nothing more may be handed out."""
    a = QueueShape("root.a", capacity={"": 50}, disable_preemption=True)
    b = QueueShape("root.b", capacity={"": 50})
    used = {
        "a": [
            Container(ContainerId(1, 1), a.path, "n0", r(80)),
            Container(ContainerId(1, 2), a.path, "n0", r(10), reserved=True),
        ],
        "b": [Container(ContainerId(2, 1), b.path, "n0", r(20))],
    }
    return two_queue_round(a, b, used, {a.path: r(90), b.path: r(b_ideal)}, demand={b.path: r(40)})


def break_ideal_beyond_starting_assignments() -> Round:
    """b is offered 5 although the starting assignments already exceed root's ideal."""
    return untouchable_round(25)


def break_am_limit() -> Round:
    """a's AM limit is 50 x 0.5 = 25; its only AM (10) is within it and still taken."""
    return make_round([(1, 8), (1, 7), (1, 1)], snapshot=make_snapshot(am_percent=0.5))


def break_killable_early() -> Round:
    """Marked at 0, wait 10000, made killable at 5000."""
    c = container(SNAPSHOT, 1, 8)
    prior = PolicyState(marks={c.container_id: 0})
    event = PreemptionEvent(EventType.MARK_CONTAINER_FOR_KILLABLE, c, "fifo")
    return make_round([(1, 8)], now=5000, prior=prior, events=[event])


def break_killable_unmarked() -> Round:
    c = container(SNAPSHOT, 1, 8)
    return make_round([(1, 8)], now=50000, events=[PreemptionEvent(EventType.MARK_CONTAINER_FOR_KILLABLE, c, "fifo")])


def break_killable_unselected() -> Round:
    """Marked long ago, but not selected this round: no killable event may name it (A.12)."""
    c = container(SNAPSHOT, 1, 5)
    prior = PolicyState(marks={c.container_id: 0})
    return make_round(
        [(1, 8)], now=50000, prior=prior, events=[PreemptionEvent(EventType.MARK_CONTAINER_FOR_KILLABLE, c, "fifo")]
    )


def break_kill_wait_setting() -> Round:
    """A selector claiming a kill wait the configuration does not have."""
    rnd = make_round()
    fifo = replace(rnd.result.selectors[0], kill_wait_ms=1)
    return replace(rnd, result=replace(rnd.result, selectors=(fifo,)))


def break_observe_only_events() -> Round:
    return make_round(config=replace(CONFIG, observe_only=True))


def break_observe_only_marks() -> Round:
    """No events, but the marks handed on differ from those the round started with."""
    rnd = make_round(config=replace(CONFIG, observe_only=True), events=[])
    marks = {container(SNAPSHOT, 1, 8).container_id: 0}
    return replace(rnd, result=replace(rnd.result, state=PolicyState(marks=marks)))


BREAKERS: dict[str, list[Callable[[], Round]]] = {
    "within_round_budget": [break_budget, break_budget_report],
    "guarantee_floor": [break_floor, break_floor_by_ideal_below_guarantee, break_floor_dominant],
    "selected_once": [break_selected_once_across_selectors, break_selected_once_within_selector],
    "selection_is_real": [break_selection_unknown, break_selection_killable],
    "disabled_queue_untouched": [break_disabled_selected, break_disabled_event],
    "ideal_within_parent": [
        break_ideal_parent,
        break_root_ideal,
        break_ideal_zero_guarantee_pass,
        break_ideal_beyond_starting_assignments,
    ],
    "ideal_within_partition": [
        break_ideal_partition,
        break_ideal_zero_guarantee_pass,
        break_ideal_beyond_starting_assignments,
    ],
    "am_only_over_limit": [break_am_limit],
    "killable_after_wait": [
        break_killable_early,
        break_killable_unmarked,
        break_killable_unselected,
        break_kill_wait_setting,
    ],
    "observe_only_silent": [break_observe_only_events, break_observe_only_marks],
}


def test_every_registered_property_has_a_breaking_case() -> None:
    assert set(BREAKERS) == set(PROPERTIES)


@pytest.mark.parametrize(
    "name, breaker", [(n, b) for n, bs in BREAKERS.items() for b in bs], ids=lambda x: getattr(x, "__name__", x)
)
def test_the_property_reports_its_breach(name: str, breaker: Callable[[], Round]) -> None:
    violations = PROPERTIES[name].check(breaker())
    assert violations, f"{name} missed {breaker.__name__}"
    assert all(v.property == name and v.message for v in violations)


# --------------------------------------------------------------------------------------------
# The passing side of the same boundaries.


def test_am_taken_when_the_skipped_am_resource_exceeds_the_limit() -> None:
    """With AM percent 0 the limit is 0 and the skipped AM (10) exceeds it (semantics C.6)."""
    assert reported(make_round([(1, 8), (1, 7), (1, 1)]), "am_only_over_limit") == []


def test_killable_exactly_at_mark_plus_wait() -> None:
    """``testExpireKill``-style: marked at 0 with a 10000 ms wait, killable at 10000."""
    c = container(SNAPSHOT, 1, 8)
    prior = PolicyState(marks={c.container_id: 0})
    event = PreemptionEvent(EventType.MARK_CONTAINER_FOR_KILLABLE, c, "fifo")
    assert reported(make_round([(1, 8)], now=10000, prior=prior, events=[event]), "killable_after_wait") == []
    assert reported(make_round([(1, 8)], now=9999, prior=prior, events=[event]), "killable_after_wait") != []


def test_the_balance_wait_counts_for_a_balance_selector() -> None:
    """With balance-after-satisfied on, a selector may use the balance selector's own wait."""
    config = replace(CONFIG, preemption_to_balance_enabled=True, preemption_to_balance_max_wait_ms=2000)
    c = container(SNAPSHOT, 1, 8)
    prior = PolicyState(marks={c.container_id: 0})
    balance = SelectorResult("balance", 2000, {}, (c,))
    event = PreemptionEvent(EventType.MARK_CONTAINER_FOR_KILLABLE, c, "balance")
    rnd = make_round([], config=config, now=2000, prior=prior, events=[event], extra_selectors=(balance,))
    assert reported(rnd, "killable_after_wait") == []


def test_observe_only_without_events_and_marks_passes() -> None:
    prior = PolicyState(marks={container(SNAPSHOT, 1, 3).container_id: 0})
    rnd = make_round(config=replace(CONFIG, observe_only=True), events=[], prior=prior)
    assert reported(rnd, "observe_only_silent") == []


def test_a_natural_termination_factor_above_one_widens_the_floor_bound() -> None:
    """With f = 2 the amount asked may be roundUp(30 x 2) = 60: five containers pass, the floor
    is only as strong as the setting allows (A.7)."""
    rnd = make_round([(1, 8), (1, 7), (1, 6), (1, 5), (1, 4)], config=replace(CONFIG, natural_termination_factor=2.0))
    assert reported(rnd, "guarantee_floor") == []
    assert reported(replace(rnd, config=CONFIG), "guarantee_floor") != []


def test_the_disabled_flag_is_inherited_from_an_ancestor() -> None:
    """A leaf under a parent that disables preemption is itself non-preemptable (B.6)."""
    shapes = [
        QueueShape(ROOT, children=("root.p", B)),
        QueueShape("root.p", children=("root.p.x",), capacity={"": 70}, disable_preemption=True),
        QueueShape("root.p.x", capacity={"": 100}),
        QueueShape(B, capacity={"": 30}),
    ]
    snapshot = build_snapshot(
        [("", True)],
        [Node("n0", "", r(100))],
        shapes,
        [Application(1, "root.p.x")],
        [Container(ContainerId(1, 1), "root.p.x", "n0", r(10))],
    )
    assert snapshot.queues["root.p.x"].preemption_disabled
    result = RoundResult(0, r(100), (SelectorResult("fifo", 10000, {}, snapshot.containers),), (), PolicyState())
    rnd = Round(snapshot, CONFIG, DefaultCalculator(), result)
    assert reported(rnd, "disabled_queue_untouched") != []


def test_ideals_may_exceed_the_parent_by_what_queues_start_with() -> None:
    """Untouchable over-use and reserved resource in use start the children above root's
    ideal (A.4, A.5.1): both ideal properties allow exactly that."""
    rnd = untouchable_round(20)
    assert reported(rnd, "ideal_within_parent") == []
    assert reported(rnd, "ideal_within_partition") == []


def test_the_zero_guarantee_pass_may_hand_out_what_is_left() -> None:
    rnd = zero_guarantee_round(10)
    assert reported(rnd, "ideal_within_parent") == [] and reported(rnd, "ideal_within_partition") == []
    assert reported(zero_guarantee_round(70), "ideal_within_parent") == []
    assert reported(zero_guarantee_round(71), "ideal_within_parent") != []


def test_check_round_runs_only_what_the_variant_promises() -> None:
    """Under hadoop-2.7.3 the budget is not promised (A.8 of 3.x), so a breach is not reported
    by default, but still is when the property is asked for by name."""
    legacy = replace(break_budget(), config=replace(CONFIG, total_preemption_per_round=0.2, variant="hadoop-2.7.3"))
    assert "within_round_budget" not in check_round(legacy)
    assert check_round(legacy, ["within_round_budget"])["within_round_budget"] != []


def test_check_round_rejects_an_unknown_property() -> None:
    with pytest.raises(KeyError):
        check_round(make_round(), ["no_such_property"])
