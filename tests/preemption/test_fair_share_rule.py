"""The ``fair-share`` rule of intra-queue preemption in a ``fair`` leaf (the later
``FifoIntraQueuePreemptionPlugin``: ``setFairShareForApps`` and
``calcActuallyToBePreemptedBasedOnFS``); see docs/intra-queue.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.conformance.hadoop import run_case
from yarnspec.checks.paths import BUILTIN_CASES
from yarnspec.impl.calculator import calculator
from yarnspec.impl.cluster import Application
from yarnspec.impl.errors import InputError
from yarnspec.impl.preemption.config import (
    FAIR_ORDERING_RULE_KEY,
    FAIR_SHARE,
    PRIORITY_DEMAND,
    PreemptionConfig,
)
from yarnspec.impl.preemption.fifo_intra_queue_plugin import _match_demand_by_fair_share, _set_fair_shares
from yarnspec.impl.preemption.temp_app import TempApp, TempUser
from yarnspec.impl.resources import Resource

DEFAULT = calculator("default")
DOMINANT = calculator("dominant")
CASES = BUILTIN_CASES / "hadoop-preemption-fair-share" / "TestProportionalCapacityPreemptionPolicyIntraQueueFairOrdering"


def test_the_rule_is_read_from_the_model_key() -> None:
    assert PreemptionConfig().intra_queue_fair_rule is PRIORITY_DEMAND
    assert PreemptionConfig.from_properties({FAIR_ORDERING_RULE_KEY: " fair-share "}).intra_queue_fair_rule is FAIR_SHARE
    assert FAIR_SHARE.fair_share and not PRIORITY_DEMAND.fair_share
    with pytest.raises(InputError, match="expected one of priority-demand, fair-share"):
        PreemptionConfig.from_properties({FAIR_ORDERING_RULE_KEY: "fair"}, source="conf")


def test_divide_and_ceil() -> None:
    assert DEFAULT.divide_and_ceil(Resource.of(100, 100), 3) == Resource.of(34, 1)
    assert DEFAULT.divide_and_ceil(Resource.of(0, 7), 3) == Resource.of(0, 0)
    assert DOMINANT.divide_and_ceil(Resource.of(100, 10), 3) == Resource.of(34, 4)
    assert DOMINANT.divide_and_ceil(Resource.of(7, 7), 0) == Resource.of(0, 0)


def _user(name: str, limit: int, am: int) -> TempUser:
    return TempUser(name, Resource.of(0, 0), Resource.of(am, am), Resource.of(limit, limit))


def _app(app_id: int, user: TempUser) -> TempApp:
    record = TempApp(Application(app_id, "root.a", user=user.name), Resource.of(0, 0), Resource.of(0, 0), Resource.of(0, 0), user)
    user.apps.append(record)
    return record


def test_fair_share_is_the_users_limit_split_unless_the_percent_is_100() -> None:
    u1, u2 = _user("u1", 50, 2), _user("u2", 50, 1)
    apps = [_app(1, u1), _app(2, u1), _app(3, u2)]
    _set_fair_shares(apps, 3, Resource.of(100, 100), 50, DEFAULT)
    # u1's limit (the AM taken off by TempUser and added back) over its 2 apps; u2's over 1.
    assert [a.fair_share.memory for a in apps] == [25, 25, 50]
    _set_fair_shares(apps, 3, Resource.of(100, 100), 100, DEFAULT)
    assert [a.fair_share.memory for a in apps] == [34, 34, 34]


@settings(max_examples=200, deadline=None)
@given(
    demand=st.lists(st.integers(0, 40), min_size=2, max_size=6),
    supply=st.lists(st.integers(0, 40), min_size=2, max_size=6),
)
def test_matching_by_fair_share_moves_min_of_demand_and_supply(demand: list[int], supply: list[int]) -> None:
    """Every starved application takes from every other: nothing is lost between them, no
    application gives more than it may, and the total moved is min(total demand, supply
    that others can give)."""
    n = min(len(demand), len(supply))
    user = _user("u", 100, 0)
    apps = [_app(i + 1, user) for i in range(n)]
    for app, want, spare in zip(apps, demand, supply):
        app.to_preempt_from_other = Resource.of(want, want)
        app.to_be_preempted = Resource.of(spare, spare)
    _match_demand_by_fair_share(apps, DEFAULT, Resource.of(1000, 1000))
    given_total = sum(a.actually_to_be_preempted.memory for a in apps)
    met = sum(w - a.to_preempt_from_other.memory for a, w in zip(apps, demand))
    assert given_total == met
    for app, spare in zip(apps, supply):
        assert 0 <= app.actually_to_be_preempted.memory <= spare
    # The same walk written out: the most important starved first, others least important up.
    expected = 0
    remaining = list(supply[:n])
    for index in reversed(range(n)):
        want = demand[index]
        for other in range(n):
            if want <= 0:
                break
            if other != index:
                take = min(remaining[other], want)
                remaining[other] -= take
                want -= take
                expected += take
    assert given_total == expected


def _case(name: str) -> dict[str, object]:
    return json.loads((CASES / f"{name}.json").read_text())


def test_a_wrong_fair_share_fails_the_upstream_case() -> None:
    """testIntraQueuePreemptionFairOPIntraUserPreemption expects 24 from app3: its fair share
    is half of user2's limit. Asking for 23 or 25 must fail."""
    case = _case("testIntraQueuePreemptionFairOPIntraUserPreemption")
    run_case(case)
    for wrong in (23, 25):
        changed = json.loads(json.dumps(case))
        changed["rounds"][0]["expect"][0]["count"] = wrong
        with pytest.raises(Exception):
            run_case(changed)


def test_the_old_rule_disagrees_with_the_later_upstream_case() -> None:
    case = _case("testIntraQueuePreemptionFairOPIntraUserPreemption")
    conf = case["conf"]
    assert isinstance(conf, dict)
    conf[FAIR_ORDERING_RULE_KEY] = "priority-demand"
    with pytest.raises(Exception):
        run_case(case)


def test_case_files_exist() -> None:
    assert len(list(Path(CASES).glob("*.json"))) == 11
