"""Property tests of the dispatch invariants (spec/spark/dispatch.py) over random task sets,
executors, offer orders, clock steps and failures, the progress check, and one must-fail test
per predicate showing it catches a broken state."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.spark.locality import (
    ExecutorCacheTaskLocation,
    HDFSCacheTaskLocation,
    HostTaskLocation,
    TaskLocality,
    TaskLocation,
)
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.task_scheduler import TaskSchedulerImpl, WorkerOffer
from yarnspec.impl.spark.taskset.dispatch_conf import DispatchConf, LocalityWaits
from yarnspec.impl.spark.taskset.dispatch_variant import VARIANTS, DispatchVariant
from yarnspec.impl.spark.taskset.task_set_manager import TaskSetManager
from yarnspec.impl.spark.taskset.tasks import (
    EndReason,
    ExecutorLoss,
    ExecutorLossReason,
    OfferResult,
    TaskDescription,
    TaskEndReason,
    TaskSet,
    TaskState,
)
from yarnspec.spec.spark.dispatch import (
    delay_state_violations,
    expect_offer,
    launch_violations,
    level_array_violations,
    level_liveness_violations,
    running_copy_violations,
    tasks_never_launched,
)

PROCESS, NODE, NO_PREF, RACK, ANY = list(TaskLocality)
HOSTS = ("h0", "h1", "h2", "h3")
EXECUTORS = tuple(f"e{i}" for i in range(7))  # e<i> always runs on HOSTS[i % 4]


def host_of(executor_id: str) -> str:
    return HOSTS[int(executor_id[1:]) % len(HOSTS)]


# ---- strategies ------------------------------------------------------------------------------

hosts = st.sampled_from(HOSTS + ("h9",))  # h9 never runs an executor
locations: st.SearchStrategy[TaskLocation] = st.one_of(
    hosts.map(HostTaskLocation),
    hosts.map(HDFSCacheTaskLocation),
    st.builds(lambda e: ExecutorCacheTaskLocation(host_of(e), e), st.sampled_from(EXECUTORS)),
)
task_prefs = st.lists(st.lists(locations, max_size=3).map(tuple), min_size=1, max_size=7).map(tuple)


@st.composite
def task_sets(draw: st.DrawFn, stage_id: int, allow_barrier: bool = True) -> TaskSet:
    prefs = draw(task_prefs)
    barrier = allow_barrier and len(prefs) <= 3 and draw(st.booleans())
    return TaskSet(stage_id, 0, draw(st.integers(0, 1)), prefs, barrier=barrier, shuffle_map=draw(st.booleans()))


@st.composite
def confs(draw: st.DrawFn, legacy: bool | None = None) -> DispatchConf:
    """Waits of 0-3 s, a named Spark release, and (unless fixed) either reset rule."""
    wait = draw(st.sampled_from([0, 1000, 3000]))
    node_wait = draw(st.sampled_from([wait, 0, 2000]))
    variant = VARIANTS[draw(st.sampled_from(sorted(VARIANTS)))]
    legacy_reset = draw(st.booleans()) if legacy is None else legacy
    return DispatchConf(
        waits=LocalityWaits(wait, node_wait, wait),
        variant=replace(variant, legacy_reset_on_task_launch=legacy_reset),
        max_task_failures=draw(st.integers(1, 4)),
    )


racks = st.lists(st.sampled_from(["r0", "r1", None]), min_size=5, max_size=5).map(
    lambda names: RackResolver.from_mapping({h: r for h, r in zip(HOSTS + ("h9",), names) if r is not None})
)

offer_step = st.tuples(
    st.just("offers"),
    st.lists(
        st.tuples(st.sampled_from(EXECUTORS), st.integers(1, 3)), min_size=1, max_size=5, unique_by=lambda p: p[0]
    ),
    st.randoms(use_true_random=False),
    st.booleans(),
)
steps = st.lists(
    st.one_of(
        offer_step,
        offer_step,
        st.tuples(st.just("tick"), st.sampled_from([0, 500, 1000, 3000, 9000])),
        st.tuples(st.just("succeed"), st.integers(0, 50)),
        st.tuples(
            st.just("fail"), st.integers(0, 50), st.sampled_from([EndReason.TASK_RESULT_LOST, EndReason.TASK_KILLED])
        ),
        st.tuples(st.just("lose"), st.sampled_from(EXECUTORS), st.sampled_from(list(ExecutorLoss)), st.booleans()),
        st.tuples(st.just("decommission"), st.sampled_from(EXECUTORS), st.booleans()),
        st.tuples(st.just("register"), st.sampled_from(EXECUTORS)),
        st.tuples(st.just("running"), st.integers(0, 50)),
        st.tuples(st.just("speculate"), st.integers(0, 50)),
    ),
    max_size=25,
)


# ---- the checked world -------------------------------------------------------------------------


@dataclass
class World:
    """A scheduler whose managers check every launch, plus the bookkeeping of the test."""

    sched: TaskSchedulerImpl
    now: int = 0
    retired: set[str] = field(default_factory=set)
    violations: list[str] = field(default_factory=list)
    managers: list[TaskSetManager] = field(default_factory=list)

    def submit(self, task_set: TaskSet) -> TaskSetManager:
        manager = self.sched.submit_tasks(task_set, self.now)
        self.managers.append(manager)
        self._watch(manager)
        self.violations += level_liveness_violations(manager, self.sched)
        return manager

    def _watch(self, manager: TaskSetManager) -> None:
        """Check every offer the scheduler makes to ``manager`` with ``launch_violations``,
        against the allowed level the spec computes from the state just before the offer."""
        original = manager.resource_offer

        def checked(executor_id: str, host: str, max_locality: TaskLocality, now: int) -> OfferResult:
            expected = expect_offer(manager, executor_id, host, max_locality, now)
            result = original(executor_id, host, max_locality, now)
            self.violations += launch_violations(manager, self.sched, result, max_locality, expected.allowed)
            self.violations += delay_state_violations(manager, expected, max_locality, result, now)
            return result

        manager.resource_offer = checked  # type: ignore[method-assign]

    def running(self) -> list[tuple[TaskSetManager, int]]:
        return [(m, tid) for m in self.managers for tid in m.running]

    def live(self, executor_id: str) -> bool:
        return self.sched.is_executor_alive(executor_id)

    def step(self, action: tuple[object, ...]) -> None:
        kind = action[0]
        sched = self.sched
        recomputed: list[TaskSetManager] = []  # the sets Spark recomputes on this event
        if kind == "offers":
            pairs, rng, full = action[1], action[2], action[3]
            offers = [
                WorkerOffer(e, host_of(e), cores)
                for e, cores in pairs  # type: ignore[attr-defined]
                if e not in self.retired and (self.live(e) or e not in sched.registry.executor_host)
            ]
            order = list(range(len(offers)))
            rng.shuffle(order)  # type: ignore[attr-defined]
            sched.resource_offers(offers, self.now, bool(full), order=order)
        elif kind == "tick":
            self.now += int(action[1])  # type: ignore[call-overload]
        elif kind in ("succeed", "fail", "running"):
            running = self.running()
            if running:
                manager, task_id = running[int(action[1]) % len(running)]  # type: ignore[call-overload]
                if kind == "succeed":
                    manager.handle_successful_task(task_id, self.now)
                elif kind == "running":
                    manager.task_running(task_id)
                else:
                    manager.handle_failed_task(task_id, TaskState.FAILED, TaskEndReason(action[2]), self.now)  # type: ignore[arg-type]
        elif kind == "lose":
            executor_id, loss, by_app = str(action[1]), action[2], bool(action[3])
            if executor_id in sched.registry.executor_host:
                recomputed = list(sched.pool)
                sched.executor_lost(executor_id, ExecutorLossReason(loss, caused_by_app=by_app), self.now)  # type: ignore[arg-type]
                self.retired.add(executor_id)
        elif kind == "decommission":
            executor_id = str(action[1])
            recomputed = list(sched.pool)
            sched.executor_decommission(executor_id, host_of(executor_id) if action[2] else None)
        elif kind == "register":
            executor_id = str(action[1])
            if executor_id not in self.retired and sched.add_executor(executor_id, host_of(executor_id)):
                # What resourceOffers does for a new executor: only schedulable sets recompute.
                recomputed = sched.sorted_task_sets()
                for manager in recomputed:
                    manager.executor_added()
        elif kind == "speculate":
            running = self.running()
            if running:
                manager, task_id = running[int(action[1]) % len(running)]  # type: ignore[call-overload]
                index = manager.task_infos[task_id].index
                # checkSpeculatableTasks only picks a task with exactly one running copy, and
                # never in a zombie, barrier or one-task set.
                eligible = not (manager.is_zombie or manager.is_barrier or manager.num_tasks == 1)
                if eligible and manager.copies_running[index] == 1 and not manager.successful[index]:
                    manager.mark_speculatable(index)
        for manager in self.managers:
            self.violations += running_copy_violations(manager)
            self.violations += level_array_violations(manager)
            if manager in recomputed:
                self.violations += level_liveness_violations(manager, sched)


# ---- the properties ------------------------------------------------------------------------------


@settings(max_examples=250)
@given(
    conf=confs(),
    resolver=racks,
    initial=st.lists(st.sampled_from(EXECUTORS), unique=True, max_size=4),
    first=task_sets(stage_id=0),
    second=st.none() | task_sets(stage_id=1),
    actions=steps,
    shuffle_seed=st.integers(0, 3),
)
def test_invariants_hold_after_every_step(
    conf: DispatchConf,
    resolver: RackResolver,
    initial: list[str],
    first: TaskSet,
    second: TaskSet | None,
    actions: list[tuple[object, ...]],
    shuffle_seed: int,
) -> None:
    world = World(TaskSchedulerImpl(conf, resolver, seed=shuffle_seed))
    for executor_id in initial:
        world.sched.add_executor(executor_id, host_of(executor_id))
    world.submit(first)
    for index, action in enumerate(actions):
        if second is not None and index == len(actions) // 2:
            world.submit(second)
        world.step(action)
        assert world.violations == [], f"after step {index} {action[0]}: {world.violations}"


@settings(max_examples=120)
@given(
    conf=confs(legacy=False),
    resolver=racks,
    executors=st.lists(
        st.tuples(st.sampled_from(EXECUTORS), st.integers(1, 3)), min_size=1, max_size=5, unique_by=lambda p: p[0]
    ),
    first=task_sets(stage_id=0),
    second=st.none() | task_sets(stage_id=1),
    tick=st.sampled_from([100, 700, 1000, 2500]),
    seed=st.integers(0, 3),
)
def test_every_pending_task_is_eventually_launched(
    conf: DispatchConf,
    resolver: RackResolver,
    executors: list[tuple[str, int]],
    first: TaskSet,
    second: TaskSet | None,
    tick: int,
    seed: int,
) -> None:
    offers = [WorkerOffer(e, host_of(e), cores) for e, cores in executors]
    sched = TaskSchedulerImpl(conf, resolver, seed=seed)
    slots = sum(o.cores for o in offers)
    for task_set in (first, second):
        if task_set is not None and not (task_set.barrier and task_set.num_tasks > slots):
            sched.submit_tasks(task_set, 0)
    assert tasks_never_launched(sched, offers, 0, tick) == []


# ---- the legacy reset rule can starve a set; the current rule cannot (SPARK-18886) ---------------


def _one_local_core_world(legacy: bool) -> tuple[TaskSchedulerImpl, list[WorkerOffer]]:
    """Thirty tasks that all prefer e0; e0 has one core and three other executors have three
    each. The clock ticks just under the node wait, so every local launch restarts the legacy
    timer before it can expire."""
    conf = DispatchConf(
        waits=LocalityWaits(1000, 1000, 1000), variant=DispatchVariant(legacy_reset_on_task_launch=legacy)
    )
    sched = TaskSchedulerImpl(conf, seed=0)
    offers = [WorkerOffer("e0", "h0", 1)] + [WorkerOffer(f"e{i}", f"h{i}", 3) for i in (1, 2, 3)]
    sched.submit_tasks(TaskSet.of(*[["executor_h0_e0"]] * 30), 0)
    return sched, offers


def test_legacy_reset_drains_a_set_one_local_task_per_round() -> None:
    sched, offers = _one_local_core_world(legacy=True)
    waiting = tasks_never_launched(sched, offers, 0, tick_ms=900, rounds=15)
    assert len(waiting) == 15  # one task per round, all on e0


def test_current_reset_rule_moves_on_after_rejects() -> None:
    sched, offers = _one_local_core_world(legacy=False)
    assert tasks_never_launched(sched, offers, 0, tick_ms=900, rounds=15) == []


# ---- each predicate catches a broken state ----------------------------------------------------


def _one_task(*prefs: str) -> tuple[TaskSchedulerImpl, TaskSetManager]:
    sched = TaskSchedulerImpl(shuffle_offers=False)
    sched.add_executor("e1", "h1")
    sched.add_executor("e2", "h2")
    return sched, sched.submit_tasks(TaskSet.of(list(prefs)), 0)


def test_running_copy_predicate_catches_a_second_regular_attempt() -> None:
    _, manager = _one_task()
    assert manager.resource_offer("e1", "h1", ANY, 0).task is not None
    assert running_copy_violations(manager) == []
    manager.copies_running[0] = 0  # corrupt: forget the running copy
    manager.add_pending_task(0)
    assert manager.resource_offer("e2", "h2", ANY, 0).task is not None
    assert running_copy_violations(manager) == [
        "task 0 of stage 0.0 has 2 running attempts [(0, 'regular'), (1, 'regular')]"
    ]


def test_launch_predicate_catches_a_too_loose_and_an_untrue_locality() -> None:
    sched, manager = _one_task("h1")
    honest = manager.resource_offer("e1", "h1", ANY, 0)
    assert launch_violations(manager, sched, honest, ANY, NODE) == []
    too_loose = OfferResult(task=TaskDescription(7, 0, 1, "e2", "h2", ANY, False, "0.0"))
    assert launch_violations(manager, sched, too_loose, ANY, NODE) == [
        "task 0 of stage 0.0 launched ANY on e2 but only NODE_LOCAL was allowed (cap ANY, delay level NODE_LOCAL)"
    ]
    untrue = OfferResult(task=TaskDescription(7, 0, 1, "e2", "h2", NODE, False, "0.0"))
    assert launch_violations(manager, sched, untrue, ANY, NODE) == [
        "task 0 of stage 0.0 reported NODE_LOCAL on e2@h2, which its preferences do not support"
    ]


def test_level_array_predicate_catches_a_broken_level_array() -> None:
    _, manager = _one_task("h1")
    assert level_array_violations(manager) == []
    manager.levels = (ANY, NODE)
    manager.current_index = 5
    found = level_array_violations(manager)
    assert any("do not end with ANY" in v for v in found)
    assert any("not strictly ordered" in v for v in found)
    assert any("current level index 5 outside 2 levels" in v for v in found)


def test_liveness_predicate_catches_levels_not_recomputed() -> None:
    sched, manager = _one_task("executor_h1_e1")
    assert level_liveness_violations(manager, sched) == []
    sched.remove_executor("e1")  # without telling the manager
    assert level_liveness_violations(manager, sched) == [
        "stage 0.0: valid levels ['PROCESS_LOCAL', 'NODE_LOCAL', 'ANY'], but the levels with live candidates are ['ANY']"
    ]


def test_progress_check_reports_a_barrier_set_that_never_fits() -> None:
    sched = TaskSchedulerImpl(shuffle_offers=False)
    sched.submit_tasks(TaskSet.of([], [], [], barrier=True), 0)
    found = tasks_never_launched(sched, [WorkerOffer("e1", "h1", 2)], 0, 1000)
    assert len(found) == 3 and found[0].startswith("task 0 of stage 0.0 never launched in")
