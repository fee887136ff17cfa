"""Dispatch benchmark: one stage of 100,000 tasks with host preferences over 1,000 executors on
200 hosts in 20 racks, dispatched through ``TaskSchedulerImpl.resource_offers``; then Spark's
container placement strategy for 10,000 containers.

Run: ``.venv/bin/python benchmarks/dispatch.py`` (``--tasks`` etc. to change the size). Prints
figures for a person, then, as the last line, one JSON object with the same figures.

The workload is deterministic (seeded): every task prefers the three hosts of its HDFS block
replicas; every executor has 4 cores; each round every executor offers its free cores (a full
offer, in the scheduler's seeded shuffle order), every task launched in a round finishes
before the next, and the logical clock advances 100 ms per round. Only the time spent inside
``resource_offers`` counts as dispatch time; completions are timed separately.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import sys
import time
import tracemalloc
from collections import Counter
from typing import Any

from yarnspec.impl.spark.locality import HostTaskLocation
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.task_scheduler import TaskSchedulerImpl, WorkerOffer
from yarnspec.impl.spark.taskset.tasks import TaskSet


def build_workload(
    tasks: int, executors: int, hosts: int, data_hosts: int, racks: int, cores: int, seed: int
) -> tuple[TaskSet, list[WorkerOffer], RackResolver]:
    """The task set, the executors (as full offers) and the rack table. Executors run on the
    first ``hosts`` of ``data_hosts`` hosts; block replicas are spread over all of them, so a
    few tasks have no replica on an executor host and must wait for a rack-local slot."""
    rng = random.Random(seed)
    host_names = [f"host{h:03d}" for h in range(data_hosts)]
    resolver = RackResolver.from_mapping({h: f"/rack{i % racks:02d}" for i, h in enumerate(host_names)})
    offers = [WorkerOffer(f"exec{e:04d}", host_names[e % hosts], cores) for e in range(executors)]
    preferences = tuple(tuple(HostTaskLocation(h) for h in rng.sample(host_names, 3)) for _ in range(tasks))
    return TaskSet(stage_id=0, stage_attempt_id=0, priority=0, preferences=preferences), offers, resolver


def run_dispatch(
    tasks: int, executors: int, hosts: int, data_hosts: int, racks: int, cores: int, seed: int
) -> dict[str, Any]:
    """Dispatch the whole stage; returns the figures."""
    task_set, offers, resolver = build_workload(tasks, executors, hosts, data_hosts, racks, cores, seed)
    sched = TaskSchedulerImpl(racks=resolver, seed=seed)
    now = 0
    build_start = time.perf_counter()
    manager = sched.submit_tasks(task_set, now)
    build_s = time.perf_counter() - build_start
    dispatch_s = complete_s = 0.0
    launched = rounds = 0
    localities: Counter[str] = Counter()
    while manager.tasks_successful < tasks:
        start = time.perf_counter()
        result = sched.resource_offers(offers, now, is_all_free_resources=True)
        dispatch_s += time.perf_counter() - start
        rounds += 1
        launched += len(result.launched)
        localities.update(task.locality.name for task in result.launched)
        start = time.perf_counter()
        for task in result.launched:
            sched.task_succeeded(task.task_id, now + 50)
        complete_s += time.perf_counter() - start
        now += 100
        if rounds > 10 * tasks:
            raise RuntimeError("dispatch made no progress")
    return {
        "tasks": tasks,
        "executors": executors,
        "hosts": hosts,
        "data_hosts": data_hosts,
        "racks": racks,
        "cores_per_executor": cores,
        "rounds": rounds,
        "tasks_launched": launched,
        "localities": dict(sorted(localities.items())),
        "manager_build_s": round(build_s, 3),
        "dispatch_s": round(dispatch_s, 3),
        "tasks_dispatched_per_s": round(launched / dispatch_s) if dispatch_s else None,
        "completion_s": round(complete_s, 3),
    }


def run_placement(containers: int, hosts: int, seed: int) -> dict[str, Any]:
    """Time ``locality_of_requested_containers`` for ``containers`` requests over ``hosts``."""
    from yarnspec.impl.spark.placement import PlacementInput, locality_of_requested_containers

    rng = random.Random(seed)
    host_names = [f"host{h:03d}" for h in range(hosts)]
    hints = {h: rng.randint(1, 2000) for h in host_names}
    inp = PlacementInput.of(
        num_containers=containers,
        num_locality_aware_tasks=sum(hints.values()) // 3,
        host_to_local_task_count=hints,
        allocated_host_to_container_count={h: rng.randint(0, 3) for h in host_names[: hosts // 2]},
        executor_cores=4,
        task_cpus=1,
        rack_resolver=RackResolver.from_mapping({h: f"/rack{i // 10:02d}" for i, h in enumerate(host_names)}),
    )
    start = time.perf_counter()
    requests = locality_of_requested_containers(inp)
    elapsed = time.perf_counter() - start
    return {
        "containers": containers,
        "placement_hosts": hosts,
        "placement_requests": len(requests),
        "placement_with_nodes": sum(1 for r in requests if r.nodes is not None),
        "placement_s": round(elapsed, 4),
    }


def main(argv: list[str] | None = None) -> int:
    """Run both parts and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--executors", type=int, default=1_000)
    parser.add_argument("--hosts", type=int, default=200)
    parser.add_argument("--data-hosts", type=int, default=240, help="hosts holding block replicas (>= --hosts)")
    parser.add_argument("--racks", type=int, default=20)
    parser.add_argument("--cores", type=int, default=4)
    parser.add_argument("--containers", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    # Dispatch runs untraced (tracemalloc would slow it down); its peak memory is the
    # process's maximum resident set. The placement run is small and traced on its own.
    if args.data_hosts < args.hosts:
        parser.error("--data-hosts must be at least --hosts")
    figures = run_dispatch(args.tasks, args.executors, args.hosts, args.data_hosts, args.racks, args.cores, args.seed)
    figures["dispatch_max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    gc.collect()
    tracemalloc.start()
    figures.update(run_placement(args.containers, args.hosts, args.seed))
    _, placement_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    figures["placement_peak_traced_mb"] = round(placement_peak / 2**20, 2)
    figures["python"] = sys.version.split()[0]

    print(
        f"dispatch: {figures['tasks']:,} tasks, {figures['executors']:,} executors x {figures['cores_per_executor']} cores "
        f"on {figures['hosts']} hosts in {figures['racks']} racks (replicas on {figures['data_hosts']} hosts)"
    )
    print(
        f"  {figures['rounds']} offer rounds, {figures['tasks_launched']:,} launches in {figures['dispatch_s']} s "
        f"= {figures['tasks_dispatched_per_s']:,} tasks/s through resource_offers"
    )
    print(f"  localities: {figures['localities']}")
    print(
        f"  manager build {figures['manager_build_s']} s, completions {figures['completion_s']} s, "
        f"peak memory (max RSS) {figures['dispatch_max_rss_mb']} MB"
    )
    print(
        f"placement: {figures['containers']:,} containers over {figures['placement_hosts']} hosts in "
        f"{figures['placement_s']} s ({figures['placement_with_nodes']:,} with node lists), "
        f"peak traced memory {figures['placement_peak_traced_mb']} MB"
    )
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
