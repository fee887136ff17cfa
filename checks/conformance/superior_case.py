"""Case files for seed 004's Superior scheduler (``notation: superior``): a worked example
played through :func:`~yarnspec.impl.preemption.superior.superior_round`.

``input``: ``cluster`` (``memory:vcores``), ``queues`` (``name``, ``minimum``, ``share``),
``apps`` in submission order (``name``, ``queue``, ``am``, ``task``, ``tasks``). The harness
starts each application's master and then its tasks, in submission order, while they fit in
what is free. Each round preempts (:func:`superior_round` with the case's ``guard``), then the
harness starts waiting tasks again the same way; ``expect`` gives the containers taken per
application in that round and each queue's use after the restart (``used_after``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from yarnspec.checks.conformance.case_fields import (
    as_int,
    as_list,
    as_object,
    as_str,
    child,
    nothing_to_check,
    reject_unknown_keys,
    required,
)
from yarnspec.checks.conformance.mockframework import parse_resource
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch
from yarnspec.impl.preemption.superior import GUARDS, SuperiorQueue, SuperiorState, Task, superior_round
from yarnspec.impl.resources import Resource, ResourceTypes, total

_TOP = ("id", "source", "notation", "guard", "max_per_interval", "input", "rounds", "notes")
_APP = ("name", "queue", "am", "task", "tasks")


def _resource(raw: Any, place: str) -> Resource:
    try:
        return parse_resource(as_str(raw, place), ResourceTypes())
    except ValueError as exc:
        raise CaseFormatError(place, str(exc)) from None


def run_case(case: Mapping[str, Any]) -> list[str]:
    """Replay the case; raise :class:`ExpectationMismatch` at the first difference."""
    reject_unknown_keys(case, _TOP, "")
    guard_name = as_str(case.get("guard", "superior"), "guard")
    guard = next((g for g in GUARDS if g.name == guard_name), None)
    if guard is None:
        raise CaseFormatError("guard", f"expected one of {', '.join(g.name for g in GUARDS)}, found {guard_name!r}")
    limit = as_int(case.get("max_per_interval", -1), "max_per_interval", minimum=-1)
    data = as_object(required(case, "input", ""), "input")
    reject_unknown_keys(data, ("cluster", "queues", "apps"), "input")
    cluster = _resource(required(data, "cluster", "input"), "input.cluster")
    queues = tuple(
        _queue(q, child("input.queues", i))
        for i, q in enumerate(as_list(required(data, "queues", "input"), "input.queues"))
    )
    apps = [
        _app(a, child("input.apps", i), {q.name for q in queues})
        for i, a in enumerate(as_list(required(data, "apps", "input"), "input.apps"))
    ]
    running: list[Task] = []
    waiting = {app["name"]: app["tasks"] for app in apps}
    _start(cluster, apps, running, waiting, first=True)
    rounds = as_list(required(case, "rounds", ""), "rounds")
    if not any(isinstance(raw, dict) and raw.get("expect") for raw in rounds):
        raise nothing_to_check("no round has an expect")
    for r, raw in enumerate(rounds):
        place = child("rounds", r)
        expect = as_object(required(as_object(raw, place), "expect", place), child(place, "expect"))
        pending = tuple(
            (q.name, total(a["task"] for a in apps if a["queue"] == q.name for _ in range(waiting[a["name"]])))
            for q in queues
        )
        taken = superior_round(SuperiorState(cluster, queues, tuple(running), pending), guard, limit)
        for task in taken:
            running.remove(task)
            waiting[task.app] += 1
        _check_counts(expect, taken, child(place, "expect.preempted"))
        _start(cluster, apps, running, waiting, first=False, queues=queues)
        state = SuperiorState(cluster, queues, tuple(running), pending)
        for name, raw_used in as_object(expect.get("used_after", {}), child(place, "expect.used_after")).items():
            wanted = _resource(raw_used, child(place, f"expect.used_after.{name}"))
            if state.used(name) != wanted:
                raise ExpectationMismatch(
                    child(place, f"expect.used_after.{name}"), str(wanted), str(state.used(name)), f"use of {name}"
                )
    return []


def _queue(raw: Any, place: str) -> SuperiorQueue:
    entry = as_object(raw, place)
    reject_unknown_keys(entry, ("name", "minimum", "share"), place)
    share = entry.get("share", 1)
    if not isinstance(share, (int, float)) or isinstance(share, bool) or share <= 0:
        raise CaseFormatError(child(place, "share"), f"expected a number > 0, found {share!r}")
    return SuperiorQueue(
        as_str(required(entry, "name", place), child(place, "name")),
        _resource(required(entry, "minimum", place), child(place, "minimum")),
        float(share),
    )


def _app(raw: Any, place: str, queues: set[str]) -> dict[str, Any]:
    entry = as_object(raw, place)
    reject_unknown_keys(entry, _APP, place)
    queue = as_str(required(entry, "queue", place), child(place, "queue"))
    if queue not in queues:
        raise CaseFormatError(child(place, "queue"), f"no queue {queue!r} in input.queues")
    return {
        "name": as_str(required(entry, "name", place), child(place, "name")),
        "queue": queue,
        "am": _resource(required(entry, "am", place), child(place, "am")),
        "task": _resource(required(entry, "task", place), child(place, "task")),
        "tasks": as_int(required(entry, "tasks", place), child(place, "tasks"), minimum=0),
    }


def _start(
    cluster: Resource, apps: Sequence[dict[str, Any]], running: list[Task], waiting: dict[str, int], first: bool,
    queues: Sequence[SuperiorQueue] = (),
) -> None:  # fmt: skip
    """Start masters (the first time) and waiting tasks while they fit: in submission order,
    the applications of queues below their minimum in some type first (as the scheduler
    serves them)."""
    minimum = {q.name: q for q in queues}

    def below(app: dict[str, Any]) -> bool:
        queue = minimum.get(app["queue"])
        used = total(t.resource for t in running if t.queue == app["queue"])
        return queue is not None and not queue.minimum.fits_all(used)

    for app in sorted(apps, key=lambda a: not below(a)):
        if first:
            _launch(cluster, running, app, app["am"], True)
        while waiting[app["name"]] and _launch(cluster, running, app, app["task"], False):
            waiting[app["name"]] -= 1


def _launch(cluster: Resource, running: list[Task], app: dict[str, Any], size: Resource, is_am: bool) -> bool:
    free = cluster - total(t.resource for t in running)
    if not size.fits_all(free):
        return False
    running.append(Task(app["name"], app["queue"], size, is_am, len(running) and max(t.started for t in running) + 1))
    return True


def _check_counts(expect: Mapping[str, Any], taken: Sequence[Task], place: str) -> None:
    wanted = as_object(expect.get("preempted", {}), place)
    for app, raw in wanted.items():
        count = as_int(raw, child(place, app), minimum=0)
        actual = sum(1 for t in taken if t.app == app)
        if actual != count:
            raise ExpectationMismatch(child(place, app), count, actual, f"containers taken from {app}")
    if sum(as_int(v, child(place, k), minimum=0) for k, v in wanted.items()) != len(taken):
        raise ExpectationMismatch(
            place, dict(wanted), {t.app: sum(1 for x in taken if x.app == t.app) for t in taken}, "containers taken"
        )
