"""Seeded random inputs for the Spark differential run.

A dispatch scenario is a taskset case without expectations: a ``reset`` input (executors,
racks, configuration, clock) and a list of step ops. It is generated online against the model:
each next step is drawn from what the model shows after the previous one (which tasks run,
which executors are alive), so every task id and executor a step names exists there. The real
Spark must then agree step by step.

What varies: hosts (two to eight, named in one of three styles), racks (with and without a default rack, some hosts unresolved), executors
(at the start, joining through offers, lost for every loss reason, decommissioned), locality
waits (global and per level), cores per task, speculation (its multiplier, quantile and minimum
run time, or Spark's defaults), the legacy delay-reset switch, the failure limit, one to three
task sets of one to ten tasks with host, executor and HDFS-cache preferences, offer rounds of one to four offers,
clock advances, partial offers (only the cores a finished task freed), barrier task sets, a
new attempt of a stage after a fetch failure, and task successes and failures of every reason.

A placement input is the argument list of ``localityOfRequestedContainers``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Task end reasons a failure step draws from, with the task state each is reported with.
_FAILURES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("FAILED", {"type": "ExceptionFailure"}),
    ("FAILED", {"type": "ExceptionFailure"}),
    ("KILLED", {"type": "TaskKilled"}),
    ("FAILED", {"type": "ExecutorLostFailure", "exit_caused_by_app": True}),
    ("FAILED", {"type": "ExecutorLostFailure", "exit_caused_by_app": False}),
    ("FAILED", {"type": "TaskResultLost"}),
    ("FAILED", {"type": "FetchFailed"}),
)


@dataclass
class DispatchScenario:
    """A ``reset`` input and the step ops that follow it."""

    seed: int
    reset: dict[str, Any]
    steps: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """A case-like object (``kind: taskset``, ``input``, ``steps`` without expectations)."""
        return {
            "id": f"spark-dispatch-differential-{self.seed}",
            "kind": "taskset",
            "input": self.reset,
            "steps": [{"op": op, "args": args} for op, args in self.steps],
        }


#: Runs one step on the model and returns its observation (raises when the model refuses).
Observe = Callable[[str, dict[str, Any]], dict[str, Any]]


class _Cluster:
    """The generator's own view of executors: which are registered, where, which decommission."""

    def __init__(self, rng: random.Random, hosts: list[str]) -> None:
        self.rng = rng
        self.hosts = hosts[:-1]
        #: a host tasks may prefer that no executor ever runs on
        self.unknown_host = hosts[-1]
        self.alive: dict[str, str] = {}
        self.decommissioned: set[str] = set()
        self.next_id = 1

    def new_executor(self) -> tuple[str, str]:
        executor = f"e{self.next_id}"
        self.next_id += 1
        return executor, self.rng.choice(self.hosts)


def _host_names(rng: random.Random, count: int) -> list[str]:
    """``count + 1`` host names in one of three styles (the order of Spark's hash maps depends
    on the names, so they vary too)."""
    style = rng.choice(["host{}", "node{:02d}.cluster.example.com", "10.0.{}.17"])
    return [style.format(i) for i in range(1, count + 2)]


def _conf(rng: random.Random) -> dict[str, str]:
    conf: dict[str, str] = {}
    if rng.random() < 0.8:
        conf["spark.locality.wait"] = rng.choice(["0", "500ms", "1s", "3s"])
    for level in ("process", "node", "rack"):
        if rng.random() < 0.2:
            conf[f"spark.locality.wait.{level}"] = rng.choice(["0", "1s", "2s", "5s"])
    if rng.random() < 0.3:
        conf["spark.task.cpus"] = rng.choice(["1", "2"])
    if rng.random() < 0.1:
        conf["spark.locality.wait.legacyResetOnTaskLaunch"] = "true"
    if rng.random() < 0.4:
        conf["spark.speculation"] = "true"
        if rng.random() < 0.6:
            conf["spark.speculation.multiplier"] = rng.choice(["1.0", "1.5", "2.0", "3.0"])
        if rng.random() < 0.6:
            conf["spark.speculation.quantile"] = rng.choice(["0.5", "0.75", "0.9"])
        if rng.random() < 0.6:
            conf["spark.speculation.minTaskRuntime"] = rng.choice(["0", "100ms", "1s"])
    return conf


def _task_set(rng: random.Random, stage: int, priority: int, cluster: _Cluster) -> dict[str, Any]:
    tasks = []
    for _ in range(rng.randint(1, 10)):
        prefs: list[dict[str, str]] = []
        for _ in range(rng.choice([0, 1, 1, 1, 2, 2])):
            host = rng.choice(cluster.hosts + [cluster.unknown_host])
            kind = rng.random()
            if kind < 0.15 and cluster.alive:
                executor = rng.choice(sorted(cluster.alive))
                prefs.append({"kind": "executor", "host": cluster.alive[executor], "executor": executor})
            elif kind < 0.25:
                prefs.append({"kind": "hdfs_cache", "host": host})
            else:
                prefs.append({"kind": "host", "host": host})
        tasks.append(prefs)
    task_set: dict[str, Any] = {"stage_id": stage, "stage_attempt_id": 0, "priority": priority, "tasks": tasks}
    if rng.random() < 0.1:
        task_set["barrier"] = True
    return task_set


def _loss_reason(rng: random.Random, decommissioned: bool) -> dict[str, Any]:
    if decommissioned and rng.random() < 0.7:
        return {"type": "ExecutorDecommission"}
    return rng.choice(
        [
            {"type": "ExecutorProcessLost", "caused_by_app": True},
            {"type": "ExecutorProcessLost", "caused_by_app": False},
            {"type": "ExecutorKilled"},
            {"type": "ExecutorExited", "exit_code": 1, "exit_caused_by_app": True},
            {"type": "ExecutorDecommission"},
        ]
    )


def dispatch_reset(rng: random.Random, cluster: _Cluster) -> dict[str, Any]:
    """The ``reset`` input: racks, starting executors, configuration, failure limit, clock."""
    racks = rng.randint(1, 4)
    host_rack = {host: f"/rack{rng.randint(1, racks)}" for host in cluster.hosts if rng.random() < 0.85}
    if rng.random() < 0.3:
        host_rack["*"] = "/rack1"
    executors = []
    for _ in range(rng.randint(0, 4)):
        executor, host = cluster.new_executor()
        cluster.alive[executor] = host
        executors.append([executor, host])
    reset: dict[str, Any] = {
        "scheduler": "TaskSchedulerImpl",
        "executors": executors,
        "host_rack": host_rack,
        "conf": _conf(rng),
        # Spark asserts that a task finishes at a positive time, so the clock starts after 0.
        "clock_start_ms": 1000,
    }
    if rng.random() < 0.5:
        reset["max_task_failures"] = rng.choice([1, 2, 4])
    return reset


def _offers(rng: random.Random, cluster: _Cluster) -> dict[str, Any]:
    usable = [e for e in sorted(cluster.alive) if e not in cluster.decommissioned]
    chosen = rng.sample(usable, min(len(usable), rng.randint(1, 3)))
    if not chosen or rng.random() < 0.2:
        executor, host = cluster.new_executor()
        cluster.alive[executor] = host
        chosen.append(executor)
    rng.shuffle(chosen)
    offers = [{"exec_id": e, "host": cluster.alive[e], "cores": rng.choice([0, 1, 1, 2, 2, 4])} for e in chosen]
    if rng.random() < 0.25:
        # what the backend offers after a task ends: only the freed cores
        return {"offers": offers, "is_all_free_resources": False}
    return {"offers": offers}


def _stage_of(observation: dict[str, Any], task_id: int) -> list[int]:
    """The stage id of the set running ``task_id`` (a list: empty when none is)."""
    return [int(s["stage"].split(".")[0]) for s in observation["task_sets"] if task_id in s["running_task_ids"]]


def _running(observation: dict[str, Any]) -> list[int]:
    return sorted(t for s in observation["task_sets"] for t in s["running_task_ids"])


def generate_dispatch(
    seed: int, observe_reset: Callable[[dict[str, Any]], object], observe: Observe
) -> DispatchScenario:
    """A random scenario, built step by step against the model (``observe_reset`` starts it,
    ``observe`` runs one step and returns the observation)."""
    rng = random.Random(seed)
    cluster = _Cluster(rng, _host_names(rng, rng.randint(2, 8)))
    scenario = DispatchScenario(seed, dispatch_reset(rng, cluster))
    observe_reset(scenario.reset)
    speculation = scenario.reset["conf"].get("spark.speculation") == "true"
    stage = 0
    submitted: dict[int, dict[str, Any]] = {}
    fetch_failed: set[int] = set()
    state: dict[str, Any] = {"task_sets": [], "launched": []}
    for step in range(rng.randint(6, 30)):
        running = _running(state)
        choices: list[tuple[float, str]] = [(5.0, "scheduler_resource_offers"), (3.0, "advance_clock")]
        if stage < 3:
            choices.append((4.0 if step == 0 else 0.8, "submit_task_set"))
        if running:
            choices += [(4.0, "handle_successful_task"), (1.2, "handle_failed_task")]
        if cluster.alive:
            choices += [(0.7, "scheduler_executor_lost"), (0.5, "scheduler_decommission_executor")]
        if stage:
            choices.append((0.7, "mark_running_tasks_launched"))
        if speculation and running:
            choices.append((2.0, "check_speculatable"))
        if fetch_failed:
            choices.append((2.0, "resubmit"))
        op = rng.choices([c[1] for c in choices], weights=[c[0] for c in choices])[0]
        args: dict[str, Any]
        if op == "submit_task_set":
            args = _task_set(rng, stage, rng.choice([0, 0, 1]), cluster)
            submitted[stage] = args
            stage += 1
        elif op == "resubmit":
            # the DAG scheduler's next attempt of a stage whose attempt hit a fetch failure
            again = rng.choice(sorted(fetch_failed))
            fetch_failed.discard(again)
            op = "submit_task_set"
            args = {**submitted[again], "stage_attempt_id": submitted[again]["stage_attempt_id"] + 1}
            submitted[again] = args
        elif op == "scheduler_resource_offers":
            args = _offers(rng, cluster)
        elif op == "advance_clock":
            args = {"ms": rng.choice([100, 500, 1000, 2000, 3000, 5000])}
        elif op == "handle_successful_task":
            args = {"task_id": rng.choice(running)}
        elif op == "handle_failed_task":
            task_state, reason = rng.choice(_FAILURES)
            args = {"task_id": rng.choice(running), "state": task_state, "reason": dict(reason)}
            if reason["type"] == "FetchFailed":
                fetch_failed.update(_stage_of(state, args["task_id"]))
        elif op == "scheduler_executor_lost":
            executor = rng.choice(sorted(cluster.alive))
            args = {"exec_id": executor, "reason": _loss_reason(rng, executor in cluster.decommissioned)}
            cluster.alive.pop(executor)
            cluster.decommissioned.discard(executor)
        elif op == "scheduler_decommission_executor":
            executor = rng.choice(sorted(cluster.alive))
            args = {"exec_id": executor, "worker_host": cluster.alive[executor] if rng.random() < 0.5 else None}
            cluster.decommissioned.add(executor)
        else:
            args = {}
        scenario.steps.append((op, args))
        state = observe(op, args)
    return scenario


def generate_placement(seed: int) -> dict[str, Any]:
    """A random input of ``localityOfRequestedContainers`` (the protocol's placement input)."""
    rng = random.Random(seed)
    hosts = [f"host{i}" for i in range(1, rng.randint(1, 7) + 1)]
    tasks = rng.randint(1, 40)
    hints = [[host, rng.randint(1, tasks)] for host in rng.sample(hosts, rng.randint(1, len(hosts)))]
    allocated = {host: rng.randint(0, 3) for host in hosts + ["hostX"] if rng.random() < 0.4}
    pending = [
        {"nodes": rng.sample(hosts, rng.randint(1, min(3, len(hosts))))} for _ in range(rng.choice([0, 0, 1, 2, 3]))
    ]
    cores = rng.choice([1, 2, 4, 5, 8])
    resolver = {host: f"/rack{rng.randint(1, 2)}" for host in hosts if rng.random() < 0.7}
    if rng.random() < 0.6:
        resolver["*"] = "/default-rack"
    return {
        "num_containers": rng.randint(0, 8),
        "num_locality_aware_tasks": tasks,
        "host_to_local_task_count": hints,
        "allocated_host_to_container_count": allocated,
        "locality_matched_pending_requests": pending,
        "executor_cores": cores,
        "task_cpus": rng.choice([c for c in (1, 2) if c <= cores]),
        "rack_resolver": resolver,
    }
