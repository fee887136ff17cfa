"""The partitioned breadth-first search: one coordinator, ``N`` partitions of the visited set.

:func:`explore_partitioned` checks a model's invariants and deadlock like
:func:`yarnspec.checks.explore.explore`, with the visited set split over partitions
(:mod:`.partition`) that run in this process, in local processes (:mod:`.backends`) or on Ray
(:mod:`.ray_backend`). The search is level-synchronous: every partition expands its part of
one level, the successors go straight to their owners, and the coordinator, which sees only
small per-level summaries, decides where the level ends. It reproduces the one-worker search exactly: the same distinct states, transitions,
depth and verdict, and the same shortest counterexample, for any number of partitions.

Where the one-worker search stops inside a level (a violation, a deadlock, a state bound), the
coordinator finds the same stopping point: the first event in the one-worker order (a
candidate's tag, a deadlocked parent's rank) and counts the states and transitions the
one-worker search had met by then. A time limit or Ctrl-C stops at the last whole level.

It also carries what long runs need: coverage per action kind, fingerprints instead of states
(:mod:`.fingerprint`), and checkpoints (:mod:`.checkpoint`). Progress properties are not
checked here: they need the whole state graph in one place (:mod:`.liveness`).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yarnspec.checks.explore.arguments import whole_number
from yarnspec.checks.explore.backends import Backend, InlineBackend, ProcessBackend
from yarnspec.checks.explore.bfs import GC_FIRST_GENERATION
from yarnspec.checks.explore.checkpoint import Checkpoint, Counts, header
from yarnspec.checks.explore.fingerprint import collision_probability
from yarnspec.checks.explore.model_source import ModelSource
from yarnspec.checks.explore.partition import (
    ROOT,
    ROUTE_BY_FINGERPRINT,
    ROUTE_BY_HASH,
    Expansion,
    ReceivedStates,
    SearchOptions,
    Tag,
)
from yarnspec.checks.explore.partition_snapshot import Restored
from yarnspec.checks.explore.progress import ProgressLine
from yarnspec.checks.explore.result import ExploreResult, Stats, Verdict, cut_verdict, peak_rss_bytes
from yarnspec.checks.explore.state_data import printable
from yarnspec.checks.explore.timing import Clock, print_profile, profile_requested
from yarnspec.checks.explore.trace import build_trace
from yarnspec.checks.explore.wire import dumps
from yarnspec.impl.errors import InputError
from yarnspec.spec.outcome import Limit
from yarnspec.spec.transition_system import TransitionSystem, first_violation

#: States each worker explores at start to check that Python's hash agrees between processes.
PROBE_STATES = 200
#: A cut that keeps no candidate (every tag is above it).
NOTHING: Tag = (-1, -1)

Factory = Callable[[int, ModelSource, SearchOptions], Backend]


def local_processes(count: int, source: ModelSource, options: SearchOptions) -> Backend:
    """Partitions in local processes (one partition in this process)."""
    if count == 1:
        return InlineBackend(1, source, options)
    return ProcessBackend(count, source, options)


@dataclass
class _Run:
    """The coordinator's counters (what a checkpoint saves besides the partitions)."""

    stored: int = 0
    transitions: int = 0
    depth: int = 0
    complete_depth: int = 0
    frontier: int = 0
    truncated: bool = False
    limit: Limit | None = None  # what cut the search, when ``truncated``
    violation: tuple[str, int, int, str, str] | None = None  # (kind, partition, index, name, message)
    notes: list[str] = field(default_factory=list)
    initial_done: bool = False
    timed_out: bool = False
    symmetry: bool = False
    workers: int = 1
    routing: str = ROUTE_BY_HASH


def explore_partitioned(
    source: ModelSource,
    *,
    workers: int = 1,
    backend: Factory = local_processes,
    max_depth: int | None = None,
    max_states: int | None = None,
    symmetry: bool = False,
    deadlock: bool = True,
    fingerprints: bool = False,
    coverage: bool = False,
    time_limit: float | None = None,
    show_progress: bool | None = None,
    progress_every: float | None = None,
    checkpoint: str | None = None,
    checkpoint_every: float | None = None,
    resume: str | None = None,
    profile: bool | None = None,
) -> ExploreResult:
    """Explore the model ``source`` builds, in ``workers`` partitions started by ``backend``
    (see the module docstring). The bounds, ``symmetry``, ``deadlock``, ``time_limit`` and
    the progress line are as in :func:`yarnspec.checks.explore.explore`; ``fingerprints``
    stores 64-bit fingerprints instead of keys; ``coverage`` counts actions per kind;
    ``checkpoint`` is written at the end of a level every ``checkpoint_every`` seconds (and
    when the run stops short), ``resume`` continues from one; ``profile`` prints where the time
    went to stderr (:mod:`.timing`; by default when ``YARNSPEC_EXPLORE_PROFILE`` asks for it).

    The cyclic garbage collector runs less often meanwhile, as in the one-worker search."""
    whole_number("explore", "workers", workers, 1)
    for place, value, lowest in (
        ("max_depth", max_depth, 0),
        ("max_states", max_states, 1),
        ("time_limit", time_limit, 1),
    ):
        if value is not None:
            whole_number("explore", place, value, lowest)
    routing = ROUTE_BY_FINGERPRINT if fingerprints else ROUTE_BY_HASH
    timed = profile_requested() if profile is None else profile
    options = SearchOptions(symmetry, fingerprints, deadlock, coverage, routing, timed)
    clock = Clock(options.profile)
    with clock.phase("build"):
        model = source.build()
    started, cpu_started = time.perf_counter(), time.process_time()
    deadline = None if time_limit is None else time.time() + time_limit
    identity = header(source.identity(), {
        "symmetry": symmetry, "fingerprints": fingerprints, "deadlock": deadlock, "coverage": coverage, "partitions": workers,
    })  # fmt: skip
    restored = Checkpoint.load(resume, identity) if resume is not None else None
    if checkpoint is not None:
        Checkpoint.check_writable(checkpoint)
    line = ProgressLine(enabled=show_progress, log_interval=progress_every)
    run = _Run(symmetry=symmetry, workers=workers, routing=routing)
    pool: Backend | None = None
    path: tuple[list[Any], list[Any]] | None = None
    figures: list[Any] = []
    thresholds = gc.get_threshold()
    gc.set_threshold(GC_FIRST_GENERATION, *thresholds[1:])  # before the workers fork, who keep it
    try:
        with clock.phase("start workers"):
            pool = backend(workers, source, options)
        saver = _Saver(checkpoint, checkpoint_every, identity, pool, run)
        search = _Coordinator(model, pool, run, symmetry, max_depth, max_states, deadline, line, saver)
        if restored is not None and resume is not None:
            search.restore(restored, resume, fingerprints)
        else:
            with clock.phase("probe"):
                search.choose_routing(options)
        with clock.phase("levels"):
            search.run()
        if run.violation is not None:
            _, partition, index, _, _ = run.violation
            path = ([search.initial[index]], []) if partition == ROOT else search.path_to(partition, index)
        with clock.phase("figures"):
            figures = pool.call("figures", [()] * pool.count)
    except KeyboardInterrupt:
        if pool is not None:
            pool.close(wait=False)
        run.truncated, run.violation, run.limit = True, None, Limit.INTERRUPTED
        run.notes.append("interrupted (Ctrl-C): the figures are those of the levels finished by then")
    except Exception as exc:
        if resume is None or isinstance(exc, InputError):
            raise
        # The resumed states passed every check and the model failed on their successors: a
        # forged checkpoint whose parts fit together (a run without --resume shows a real fault).
        last = (str(exc).strip().splitlines() or [""])[-1][:200]
        raise InputError(
            resume,
            "--resume",
            f"the search failed on states from this checkpoint ({type(exc).__name__}: {printable(last)}); "
            "resume only from checkpoints this yarnspec wrote, or run again without --resume",
        ) from None
    finally:
        gc.set_threshold(*thresholds)
        line.close()
        if pool is not None:
            with clock.phase("close"):
                pool.close()
    if any(invariant.premise is not None for invariant in model.invariants()):
        run.notes.append(
            "vacuity not checked: the partitioned search does not count the invariants' premises (run without the scale options to count them)"
        )
    if run.timed_out:
        run.limit = Limit.TIME
        run.notes.append(
            f"stopped at the time limit of {time_limit:g} s: the figures are those of the levels finished by then"
        )
    if checkpoint is not None and run.truncated and Path(checkpoint).exists():
        run.notes.append(f"checkpoint {checkpoint} holds the last whole level (continue with --resume {checkpoint})")
    trace = None
    if run.violation is not None and path is not None:
        kind, _, _, name, message = run.violation
        trace = build_trace(model, "deadlock" if kind == "deadlock" else "invariant", name, message, *path)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    coordinator = clock.report()
    if coordinator is not None:
        print_profile([f[6] for f in figures], {**coordinator, "wall": seconds})
    return _result(model, run, trace, figures, fingerprints, seconds, cpu_seconds)


def _result(
    model: TransitionSystem[Any, Any],
    run: _Run,
    trace: Any,
    figures: list[Any],
    fingerprints: bool,
    seconds: float,
    cpu_seconds: float,
) -> ExploreResult:
    """The result, in the one-worker search's form, with the partitions' figures summed."""
    if trace is not None:
        verdict = Verdict.violated()
    else:
        verdict = cut_verdict((run.limit or Limit.STATES) if run.truncated else None, run.complete_depth, run.stored)
    me = os.getpid()
    store = sum(f[1] for f in figures)
    cpu_seconds += sum(f[2] for f in figures if f[4] != me)
    peak = peak_rss_bytes() + sum(f[3] for f in figures if f[4] != me)
    covered = [f[5] for f in figures if f[5] is not None]
    coverage = covered[0].merge(covered[1:]) if covered else None
    stats = Stats(
        distinct_states=run.stored,
        transitions=run.transitions,
        depth=run.depth,
        seconds=round(seconds, 6),
        cpu_seconds=round(cpu_seconds, 6),
        states_per_second=round(run.stored / seconds, 1) if seconds > 0 else 0.0,
        store_bytes=store,
        bytes_per_state=round(store / run.stored, 1) if run.stored else 0.0,
        peak_rss_bytes=peak,
        symmetry=run.symmetry,
    )
    collision = collision_probability(run.stored) if fingerprints else None
    return ExploreResult(
        model.name, dict(model.parameters), model.variant, verdict, trace, (), stats, tuple(run.notes),
        coverage, collision, run.workers,
    )  # fmt: skip


class _Coordinator:
    """Drives the partitions level by level (see the module docstring)."""

    def __init__(
        self,
        model: TransitionSystem[Any, Any],
        pool: Backend,
        run: _Run,
        symmetry: bool,
        max_depth: int | None,
        max_states: int | None,
        deadline: float | None,
        line: ProgressLine,
        saver: _Saver,
    ) -> None:
        self.model, self.pool, self.run_, self.symmetry = model, pool, run, symmetry
        self.max_depth, self.max_states, self.deadline, self.line = max_depth, max_states, deadline, line
        self.saver = saver
        self.initial: list[Any] = list(model.initial_states())
        self.resumed_from: str | None = None

    def everyone(self, method: str, *args: Any) -> list[Any]:
        """Call ``method(*args)`` on every partition."""
        return self.pool.call(method, [args] * self.pool.count)

    def one(self, partition: int, method: str, *args: Any) -> Any:
        """Call ``method(*args)`` on one partition."""
        return self.pool.call(method, [args if i == partition else None for i in range(self.pool.count)])[partition]

    def choose_routing(self, options: SearchOptions) -> None:
        """Keep routing by Python's hash when every process hashes the first states alike;
        otherwise (a key's hash depends on the process) route by stable fingerprints."""
        if self.pool.count == 1 or options.routing != ROUTE_BY_HASH or isinstance(self.pool, InlineBackend):
            return
        probes = self.everyone("probe", PROBE_STATES)
        if any(probe != probes[0] for probe in probes):
            self.everyone("set_routing", ROUTE_BY_FINGERPRINT)
            self.run_.routing = ROUTE_BY_FINGERPRINT
            self.run_.notes.append(
                "keys hash differently in each process (None or other address-hashed values in them), "
                "so states are routed by their 64-bit fingerprint, which costs time"
            )

    def restore(self, checkpoint: Checkpoint, path: str, fingerprints: bool) -> None:
        """Continue from ``checkpoint`` (read from ``path``): each partition checks and takes
        its segment, then the counts are checked across them; one :class:`InputError` for
        the first fault (nothing is explored from a checkpoint that fails a check)."""
        counts, run = checkpoint.counts, self.run_
        if counts.routing != run.routing and not fingerprints:
            self.everyone("set_routing", counts.routing)
        answers: list[Restored] = self.pool.call("restore", [(segment,) for segment in checkpoint.partitions])
        for answer in answers:
            if answer.fault is not None:
                raise InputError(path, "--resume", answer.fault)
        stored = [answer.stored for answer in answers]
        figures = (
            ("states", sum(stored), counts.stored),
            ("frontier states", sum(a.frontier for a in answers), counts.frontier),
        )
        for what, held, said in figures:
            if held != said:
                raise InputError(path, "--resume", f"the partitions hold {held:,} {what}, the header counts {said:,}")
        for partition, answer in enumerate(answers):
            for target, needed in enumerate(answer.needed):
                if needed > stored[target]:
                    raise InputError(
                        path, "--resume",
                        f"partition {partition} links to state {needed - 1} of partition {target}, which holds {stored[target]:,}",
                    )  # fmt: skip
        run.stored, run.transitions, run.depth = counts.stored, counts.transitions, counts.depth
        run.complete_depth, run.frontier, run.routing = counts.complete_depth, counts.frontier, counts.routing
        run.initial_done = True
        self.resumed_from = path
        if self.max_states is not None and run.stored > self.max_states:
            run.notes.append(
                f"the checkpoint holds {run.stored:,} states, more than --max-states {self.max_states:,}: nothing more was explored"
            )

    def run(self) -> None:
        """Seed the initial states (unless resumed), then run levels until done or stopped;
        a checkpoint is written on the way (and where a bound or the time limit stops)."""
        run = self.run_
        if not run.initial_done:
            if not self._seed():
                return
            run.initial_done = True
        while run.frontier and not run.truncated and run.violation is None:
            if self.deadline is not None and time.time() > self.deadline:
                run.truncated = run.timed_out = True
                self.saver.save_if_due(force=True)
                break
            if not self._level():
                break
            self.saver.save_if_due()

    def _seed(self) -> bool:
        """The initial states, as the one-worker search takes them; ``False`` on a violation."""
        run, invariants = self.run_, tuple(self.model.invariants())
        canonical = self.model.canonical if self.symmetry else None
        keys: set[Any] = set()
        chosen: list[tuple[int, Any]] = []
        for place, state in enumerate(self.initial):
            key = state if canonical is None else canonical(state)
            if key in keys:
                continue
            if self.max_states is not None and len(chosen) >= self.max_states:
                raise InputError("explore", "max_states", f"{self.max_states} is below the number of initial states")
            keys.add(key)
            chosen.append((place, state))
            fault = first_violation(invariants, state) if invariants else None
            if fault is not None:
                run.stored = len(chosen)
                run.violation = ("initial", -1, place, *fault)
                return False
        run.stored = len(chosen)
        run.frontier = sum(self.everyone("seed", dumps(chosen)))
        return True

    def _level(self) -> bool:
        """One level; ``False`` when the run stops within it."""
        run = self.run_
        # a run resumed with a smaller bound than its checkpoint's states stops at once
        room = sys.maxsize if self.max_states is None else max(0, self.max_states - run.stored)
        at_depth_limit = self.max_depth is not None and run.depth >= self.max_depth
        if at_depth_limit:
            room = 0
        run.complete_depth = run.depth
        expansions: list[Expansion] = self.everyone("expand", self.deadline)
        if any(e.timed_out for e in expansions):
            run.truncated = run.timed_out = True
            self.saver.save_if_due(force=True)  # the partitions are still at the level's start
            return False
        found = self.pool.exchange()
        total = sum(c.new for c in found)
        cut: Tag | None = None
        if total > room:
            run.truncated = True
            run.limit = Limit.DEPTH if at_depth_limit else Limit.STATES
            self.saver.save_if_due(force=True)  # the last whole level, from which a resume goes on
            cut = NOTHING if room == 0 else sorted(t for ts in self.everyone("tags", room) for t in ts)[room - 1]
        event = self._first_event(expansions, found, cut)
        if event is not None:
            self._stop_at(event, expansions, cut)
            return False
        base = max(e.longest for e in expansions) + 1
        stored = sum(n for n, _ in self.everyone("commit", cut, base))
        run.stored += stored
        run.transitions += sum(e.transitions for e in expansions)
        if stored:
            run.depth += 1
        run.frontier = stored
        self.line.update(run.stored, run.depth, run.frontier)
        return not run.truncated

    @staticmethod
    def _first_event(
        expansions: list[Expansion], found: list[ReceivedStates], cut: Tag | None
    ) -> tuple[Tag, str, int, str, str] | None:
        """The first violation or deadlock in the one-worker order: ``(tag, kind, partition,
        name, message)``; a deadlock's tag is ``(rank, -1)``, before any successor of it."""
        events: list[tuple[Tag, str, int, str, str]] = []
        for partition, candidates in enumerate(found):
            if candidates.violation is not None and (cut is None or candidates.violation[0] <= cut):
                events.append((candidates.violation[0], "invariant", partition, *candidates.violation[1:]))
        for partition, expansion in enumerate(expansions):
            if expansion.deadlock is not None:
                events.append(((expansion.deadlock[0], -1), "deadlock", partition, "deadlock", "no action is enabled"))
        return min(events, key=lambda event: event[0]) if events else None

    def _stop_at(self, event: tuple[Tag, str, int, str, str], expansions: list[Expansion], cut: Tag | None) -> None:
        """Count what the one-worker search had met at ``event`` and record the violation."""
        run = self.run_
        tag, kind, partition, name, message = event
        limit = tag if cut is None else min(tag, cut)
        stored = sum(self.everyone("count_up_to", limit))
        run.transitions += sum(self.everyone("transitions_before", tag[0]))
        if kind == "invariant":
            run.transitions += tag[1] + 1
            base = max(e.longest for e in expansions) + 1
            answers = self.everyone("commit", tag, base)
            index = answers[partition][1]
            run.depth += 1
        else:
            deadlocked = expansions[partition].deadlock
            assert deadlocked is not None
            index = deadlocked[1]
            if stored:
                run.depth += 1
        run.stored += stored
        run.violation = (kind, partition, index, name, message)

    def path_to(self, partition: int, index: int) -> tuple[list[Any], list[Any]]:
        """The states and actions from an initial state to the one stored at ``index`` in
        ``partition``, re-executed from the recorded positions."""
        positions: list[int] = []
        while partition != ROOT:
            if len(positions) > self.run_.stored:  # only a checkpoint's links can go round in a circle
                raise InputError(
                    self.resumed_from or "explore",
                    "--resume",
                    "the parent links of the checkpoint go round in a circle",
                )
            parent, parent_index, position = self.one(partition, "entry", index)
            positions.append(position)
            partition, index = parent, parent_index
        positions.reverse()
        states = [self.initial[positions[0]]]
        actions = []
        for position in positions[1:]:
            listed = list(self.model.successors(states[-1]))
            if position >= len(listed):
                raise InputError(
                    self.resumed_from or "explore", "--resume",
                    f"a parent link names successor {position} of a state with {len(listed)}: the checkpoint is not of this search",
                )  # fmt: skip
            action, state = listed[position]
            actions.append(action)
            states.append(state)
        return states, actions


class _Saver:
    """Writes checkpoints at the end of levels, every ``every`` seconds."""

    def __init__(
        self, path: str | None, every: float | None, identity: dict[str, Any], pool: Backend, run: _Run
    ) -> None:
        self.path, self.every, self.identity, self.pool, self.run = path, every, identity, pool, run
        self.last = time.perf_counter()

    def save_if_due(self, force: bool = False) -> None:
        """Write the checkpoint if ``every`` seconds passed since the last one (or ``force``)."""
        if self.path is None or self.run.violation is not None:
            return
        if not force and (self.every is None or time.perf_counter() - self.last < self.every):
            return
        run = self.run
        counts = Counts(run.stored, run.transitions, run.depth, run.complete_depth, run.frontier, run.routing)
        snapshots = self.pool.call("snapshot", [()] * self.pool.count)
        Checkpoint(self.identity, counts, snapshots).save(self.path)
        self.last = time.perf_counter()
