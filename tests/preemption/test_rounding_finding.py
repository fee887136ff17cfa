"""A finding of the z3 proofs (docs/proofs.md, *Findings*), pinned on the reference: with the
Default calculator, three zero-guarantee queues that use everything that is left share the
last unit as offers of ``roundUp(1 x 1/3) = 0``, so one of them ends below its use with a
target of 1 although nothing is pending and everything fits. Natural termination at its
default 0.2 rounds the amount to 0; at 1.0 a container is marked."""

from __future__ import annotations

import pytest

from yarnspec.impl.cluster import DEFAULT_PARTITION
from yarnspec.impl.preemption.result import EventType

from .builders import DEFAULT, HARNESS, ClusterBuilder, one_round


def _level() -> ClusterBuilder:
    """Root 4; ``a`` guaranteed 2 (maximum 2) and idle; ``b``, ``c`` and ``d`` guaranteed 0
    and using 1, 1 and 2 (``d``'s maximum 2); nothing pending."""
    builder = ClusterBuilder({DEFAULT_PARTITION: (4, 4)})
    builder.node("n1", total=(4, 4))
    builder.queue("root", guaranteed=(4, 4))
    builder.queue("root.a", guaranteed=(2, 2), maximum=(2, 2))
    for path in ("root.b", "root.c"):
        builder.queue(path, guaranteed=(0, 0))
    builder.queue("root.d", guaranteed=(0, 0), maximum=(2, 2))
    for path, count in (("root.b", 1), ("root.c", 1), ("root.d", 2)):
        builder.run(builder.app(path), count, size=(1, 1))
    return builder


@pytest.mark.parametrize("factor, marked", [(0.2, 0), (1.0, 1)])
def test_rounding_leaves_a_target_on_a_cluster_where_everything_fits(factor: float, marked: int) -> None:
    config = HARNESS.replace(natural_termination_factor=factor, total_preemption_per_round=1.0)
    result = one_round(_level().build(), config, calc=DEFAULT)
    target = result.selectors[0].targets[("root.d", DEFAULT_PARTITION)]
    assert target.ideal.memory == 1 and target.to_be_preempted.memory == 1
    assert sum(e.kind is EventType.MARK_CONTAINER_FOR_PREEMPTION for e in result.events) == marked
