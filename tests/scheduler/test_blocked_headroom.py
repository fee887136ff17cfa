"""Blocked headroom (``ParentQueue.assignContainersToChildQueues``): YARN-4280 and YARN-8804.

A child skipped for its queue limit gives up its headroom: the parent's later children get a
limit less it. Without the rule (Hadoop 2.7.x) a sibling takes the room the blocked child is
waiting for; with YARN-4280 alone (2.8-3.1.1) a blocked parent child gives up its whole
headroom; with YARN-8804 (2.9.2, 3.1.2, 3.2.0 and later) only what its own children blocked.
"""

from __future__ import annotations

import pytest

from tests.scheduler.helpers import gb, make_world
from tests.scheduler.test_allocation import holding
from yarnspec.impl.scheduler.allocation.allocate import heartbeat_proposal
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, RequestSpec
from yarnspec.impl.scheduler.inputs.variants import HeadroomRule, variants


@pytest.mark.parametrize("headroom, lender_takes_it", [("pre-4280", True), ("yarn-4280", False), ("yarn-8804", False)])
def test_a_blocked_borrower_keeps_the_free_room_from_the_lender(headroom: HeadroomRule, lender_takes_it: bool) -> None:
    """One 4 GB node, queues a and b at 50%. The lender A (queue a) holds 2 GB and asks 1 GB
    more; the borrower B (queue b) holds its 1 GB AM and asks for 2 GB. B comes first (less
    used) but its headroom is the free gigabyte, so it is skipped for its queue limit. Without
    the rule A's limit is 4 - 3 + 2 = 3 GB and it takes the gigabyte; with it A's limit is
    (4 - 1) - 3 + 2 = 2 GB, all used."""
    queues = {"root.queues": "a,b", "root.a.capacity": "50", "root.b.capacity": "50", "root.a.user-limit-factor": "2"}
    apps = [
        AppSpec("A", "a", gb(1), (RequestSpec(1, gb(1)),), user="ua"),
        AppSpec("B", "b", gb(1), (RequestSpec(1, gb(2)),), user="ub"),
    ]
    world = make_world(queues, [NodeSpec("n0", gb(4, 4))], apps, variants(headroom=headroom))
    state = holding(world, {0: 2, 1: 1}, {0: 1, 1: 1})
    proposal = heartbeat_proposal(world, state, 0)
    if lender_takes_it:
        assert proposal is not None and world.apps[proposal.app].name == "A"
    else:
        assert proposal is None


@pytest.mark.parametrize("headroom, sibling_gets_it", [("pre-4280", True), ("yarn-4280", False), ("yarn-8804", True)])
def test_a_blocked_parent_gives_up_only_what_its_children_blocked(
    headroom: HeadroomRule, sibling_gets_it: bool
) -> None:
    """Three levels on one 10 GB node: root.p (50%) with leaves p.x (50% of p, maximum 30%:
    3 GB) and p.y, and root.s (50%). X in p.x holds its 1 GB AM and asks for 4 GB, more than
    p.x's 2 GB headroom, so p.x is skipped for its limit and p with it. S in s holds 4 GB and
    asks 1 GB more. p (20% used) comes before s (80%). YARN-4280 alone takes p's whole
    headroom (6 - 1 = 5 GB) off root's limit for s: (10 - 5) - 5 + 4 = 4 GB, all used.
    YARN-8804 takes only p.x's 2 GB: (10 - 2) - 5 + 4 = 7 GB, and S gets its gigabyte."""
    queues = {
        "root.queues": "p,s", "root.p.capacity": "50", "root.s.capacity": "50",
        "root.p.queues": "x,y", "root.p.x.capacity": "50", "root.p.x.maximum-capacity": "30", "root.p.y.capacity": "50",
    }  # fmt: skip
    apps = [
        AppSpec("X", "x", gb(1), (RequestSpec(1, gb(4)),), user="ux"),
        AppSpec("S", "s", gb(1), (RequestSpec(1, gb(1)),), user="us"),
    ]
    world = make_world(queues, [NodeSpec("n0", gb(10, 10))], apps, variants(headroom=headroom))
    state = holding(world, {0: 1, 1: 4}, {0: 1, 1: 1})
    proposal = heartbeat_proposal(world, state, 0)
    if sibling_gets_it:
        assert proposal is not None and world.apps[proposal.app].name == "S"
    else:
        assert proposal is None
