"""The partitioned search on a local Ray cluster of several worker processes gives the
one-worker figures (Ray is in the ``test`` extra, so this runs wherever the tests do)."""

from __future__ import annotations

import os

import ray

from yarnspec.checks.explore import explore
from yarnspec.checks.explore.model_source import toy_source
from yarnspec.checks.explore.parallel import explore_partitioned
from yarnspec.checks.explore.partition import SearchOptions
from yarnspec.checks.explore.ray_backend import RayBackend, ray_cluster
from yarnspec.checks.explore.toy import ToyModel


def test_three_ray_actors_count_what_one_worker_counts() -> None:
    assert not ray.is_initialized()
    sources = [
        (
            toy_source(3, 3, 2, "broken-release"),
            explore(ToyModel(3, 3, 2, "broken-release"), check_progress=False, show_progress=False),
        ),
        # with symmetry the states follow their keys in a second round, for the new ones only
        (toy_source(3, 3, 2), explore(ToyModel(3, 3, 2), symmetry=True, check_progress=False, show_progress=False)),
    ]
    ray.init(num_cpus=3, include_dashboard=False, runtime_env={"env_vars": {"PYTHONHASHSEED": "0"}})
    try:
        nodes = ray.nodes()
        assert len(nodes) == 1 and nodes[0]["Resources"]["CPU"] == 3
        for source, expected in sources:
            symmetry = expected.stats.symmetry
            got = explore_partitioned(source, workers=3, backend=ray_cluster(), symmetry=symmetry, show_progress=False)
            assert (got.stats.distinct_states, got.stats.transitions, got.stats.depth, got.verdict) == (
                expected.stats.distinct_states, expected.stats.transitions, expected.stats.depth, expected.verdict,
            )  # fmt: skip
            assert got.violation == expected.violation
            assert got.workers == 3
        backend = RayBackend(3, toy_source(2, 2, 1), SearchOptions())
        try:  # three partitions, three worker processes, none of them this one
            pids = {figures[4] for figures in backend.call("figures", [(), (), ()])}
        finally:
            backend.close()
        assert len(pids) == 3 and os.getpid() not in pids
    finally:
        ray.shutdown()
