"""Breadth-first exhaustive search of a transition system (the explorer's main entry point).

:func:`explore` visits every reachable state level by level, remembers each by its canonical
form (the state itself, or :meth:`TransitionSystem.canonical` with symmetry on), checks the
invariants on each new state and deadlock on each expanded one, and stops at the first
violation. Because the search is breadth first, that violation's trace is a shortest one.

Memory: the store is a set of canonical states (exact, so no fingerprint collisions) plus,
per state, the index of its parent and the position of the step from the parent in the
parent's successor list (two 4-byte array entries). A trace is rebuilt by walking the parent
indices back to an initial state and re-executing the recorded positions forward, which gives
concrete states and actions (with symmetry on, the states actually expanded, not canonical
representatives).

Progress properties need the whole graph, so when a model has them the search also records
every expansion and hands the graph to :mod:`.liveness`; symmetry is then turned off (see
:func:`explore`).
"""

from __future__ import annotations

import gc
import sys
import time
from array import array
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from yarnspec.checks.explore import liveness
from yarnspec.checks.explore.arguments import whole_number
from yarnspec.checks.explore.premises import INVARIANT, PROGRESS, PremiseCount, PremiseCounter
from yarnspec.checks.explore.progress import ProgressLine
from yarnspec.checks.explore.result import ExploreResult, PropertyResult, Stats, Verdict, cut_verdict, peak_rss_bytes
from yarnspec.checks.explore.trace import Trace, build_trace
from yarnspec.impl.errors import InputError
from yarnspec.spec.outcome import Limit
from yarnspec.spec.property_guard import PropertyRaised
from yarnspec.spec.transition_system import TransitionSystem, violation_check

_ROOT = 0xFFFFFFFF
_REPORT_EVERY = 1024

SYMMETRY_OFF_FOR_LIVENESS = (
    "symmetry turned off: the model has progress properties, and the quotient by symmetry does not "
    "preserve weak fairness of action classes, so every state is explored as it is"
)


@dataclass
class _Search:
    """The working state of one breadth-first search."""

    model: TransitionSystem[Any, Any]
    symmetry: bool
    max_depth: int | None
    max_states: int | None
    deadlock: bool
    record: bool
    progress_line: ProgressLine
    deadline: float | None = None
    premises: PremiseCounter | None = None
    initial: list[Any] = field(default_factory=list)
    seen: set[Hashable] = field(default_factory=set)
    parent: array[int] = field(default_factory=lambda: array("I"))
    position: array[int] = field(default_factory=lambda: array("I"))
    expansions: list[tuple[Any, list[tuple[Any, Any]]]] = field(default_factory=list)
    transitions: int = 0
    depth: int = 0
    complete_depth: int = 0
    #: the depth of the states being checked (for a registered property that raises)
    checking_depth: int = 0
    truncated: bool = False
    interrupted: bool = False
    limit: Limit | None = None  # what cut the search, when ``truncated``
    violation: tuple[int, str, str, str] | None = None  # (index, kind, name, message)

    def run(self) -> None:
        """Search until done, a bound is reached, or a violation is found.

        The cyclic garbage collector runs less often meanwhile: the search makes millions of
        short-lived acyclic objects, and the default thresholds spend a noticeable share of
        the run scanning them. It is restored on the way out."""
        thresholds = gc.get_threshold()
        gc.set_threshold(GC_FIRST_GENERATION, *thresholds[1:])
        try:
            self._run()
        except PropertyRaised as exc:  # a registered property's code raised: bad input, placed
            raise exc.at(f"a state at depth {self.checking_depth}") from None
        except KeyboardInterrupt:
            self.truncated = self.interrupted = True  # Ctrl-C: a partial result, reported as not refuted
            self.limit = Limit.INTERRUPTED
            self.depth = self.complete_depth
        finally:
            gc.set_threshold(*thresholds)

    def _run(self) -> None:
        model = self.model
        check = violation_check(model)
        canonical = model.canonical if self.symmetry else None
        successors = model.successors
        seen, seen_add = self.seen, self.seen.add
        parent_append, position_append = self.parent.append, self.position.append
        record = self.expansions.append if self.record else None
        count = None if self.premises is None else self.premises.add
        room = sys.maxsize if self.max_states is None else self.max_states

        frontier: list[Any] = []
        self.initial = list(model.initial_states())
        if not self.initial:
            raise InputError(model.name, "initial_states", "the model has no initial state")
        for place, state in enumerate(self.initial):
            key = state if canonical is None else canonical(state)
            if key in seen:
                continue
            if room <= 0:
                raise InputError("explore", "max_states", f"{self.max_states} is below the number of initial states")
            room -= 1
            seen_add(key)
            parent_append(_ROOT)
            position_append(place)
            frontier.append(state)
            if count is not None:
                count(state)
            fault = None if check is None else check(state)
            if fault is not None:
                self.violation = (len(seen) - 1, "invariant", *fault)
                return

        stored = len(seen)
        index = 0  # the index of the state being expanded (indices follow insertion order)
        depth = 0
        while frontier and not self.truncated:
            at_depth_limit = self.max_depth is not None and depth >= self.max_depth
            if at_depth_limit:
                room = 0  # expand to count transitions and find deadlocks, store nothing new
            self.complete_depth = depth
            self.checking_depth = depth + 1  # the depth of the states this level's steps reach
            level_start = index
            following: list[Any] = []
            push = following.append
            for state in frontier:
                successor_list = successors(state)
                if record is not None:
                    successor_list = list(successor_list)
                    record((state, successor_list))
                place = 0
                for _action, target in successor_list:
                    if target is state:  # a stuttering step: the state itself, stored already
                        place += 1
                        continue
                    key = target if canonical is None else canonical(target)
                    if room > 0:
                        # add, then see whether the set grew: one hash of the key, not two for a new one
                        seen_add(key)
                        if len(seen) > stored:
                            stored += 1
                            room -= 1
                            parent_append(index)
                            position_append(place)
                            push(target)
                            if count is not None:
                                count(target)
                            fault = None if check is None else check(target)
                            if fault is not None:
                                self.violation = (stored - 1, "invariant", *fault)
                                self.transitions += place + 1
                                self.depth = depth + 1
                                return
                    elif key not in seen:
                        self.truncated = True
                        self.limit = self.limit or (Limit.DEPTH if at_depth_limit else Limit.STATES)
                    place += 1
                self.transitions += place
                if place == 0 and self.deadlock:
                    self.violation = (index, "deadlock", "deadlock", "no action is enabled")
                    self.depth = depth + (1 if following else 0)
                    return
                index += 1
                if not index % _REPORT_EVERY:
                    self.progress_line.update(len(seen), depth, len(frontier) - (index - level_start) + len(following))
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    self.truncated = True  # the time limit: a partial result, reported as not refuted
                    self.limit = Limit.TIME
                    break
            if following:
                depth += 1
            frontier = following
        self.depth = depth

    def path_to(self, index: int) -> tuple[list[Any], list[Any]]:
        """The concrete states and actions from an initial state to the state stored at ``index``."""
        chain = []
        while index != _ROOT:
            chain.append(index)
            index = self.parent[index]
        chain.reverse()
        states = [self.initial[self.position[chain[0]]]]
        actions = []
        for step in chain[1:]:
            action, state = list(self.model.successors(states[-1]))[self.position[step]]
            actions.append(action)
            states.append(state)
        return states, actions

    def store_bytes(self) -> int:
        """The bytes held by the visited-state store: the set, its keys, the parent links."""
        links = self.parent.itemsize * len(self.parent) + self.position.itemsize * len(self.position)
        return sys.getsizeof(self.seen) + _keys_bytes(self.seen) + links


def _keys_bytes(keys: set[Hashable]) -> int:
    """The bytes of the keys themselves: exact for ints; else the deep size of the keys, each
    object counted once however many states share it (states built from one another share
    most of their parts). Up to ``2 * KEY_SAMPLE`` keys it is exact. Above, it is estimated
    from an even sample of that many keys split in two halves: the first half's size, plus,
    for every other key, what a key of the second half added once the first half was counted
    (its parts not shared with states already counted)."""
    if not keys:
        return 0
    if all(type(key) is int for key in keys):
        return sum(map(sys.getsizeof, keys))
    counted: set[int] = set()
    if len(keys) <= 2 * KEY_SAMPLE:
        return sum(_deep_size(key, counted) for key in keys)
    stride = len(keys) // (2 * KEY_SAMPLE)
    sample = [key for i, key in enumerate(keys) if i % stride == 0][: 2 * KEY_SAMPLE]
    first = sum(_deep_size(key, counted) for key in sample[0::2])
    added = sum(_deep_size(key, counted) for key in sample[1::2])
    return round(first + added * (len(keys) - KEY_SAMPLE) / KEY_SAMPLE)


#: The collector's first-generation threshold during a search (Python's default is 700).
GC_FIRST_GENERATION = 50_000


#: Half the number of keys :func:`_keys_bytes` measures at most.
KEY_SAMPLE = 250


def _deep_size(value: object, counted: set[int]) -> int:
    if value is None or isinstance(value, bool) or (type(value) is int and -5 <= value <= 256) or id(value) in counted:
        return 0
    counted.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, (tuple, list, frozenset, set)):
        size += sum(_deep_size(item, counted) for item in value)
    elif isinstance(value, dict):
        size += sum(_deep_size(k, counted) + _deep_size(v, counted) for k, v in value.items())
    elif hasattr(value, "__dict__"):
        size += _deep_size(vars(value), counted)
    elif hasattr(value, "__slots__"):
        size += sum(_deep_size(getattr(value, slot, None), counted) for slot in value.__slots__)
    return size


def explore(
    model: TransitionSystem[Any, Any],
    *,
    max_depth: int | None = None,
    max_states: int | None = None,
    symmetry: bool = False,
    deadlock: bool = True,
    check_progress: bool = True,
    show_progress: bool | None = None,
    time_limit: float | None = None,
    progress_every: float | None = None,
) -> ExploreResult:
    """Explore ``model`` breadth first and check its invariants, deadlock and progress.

    ``max_depth`` bounds the steps from an initial state, ``max_states`` the distinct states
    stored; when either cuts the search short the verdict is "not refuted", saying which limit
    cut it and how far it got. Every premise of an invariant or progress property is counted
    on the states stored (:mod:`.premises`): a progress property whose premise never holds is
    "vacuous", and the result lists the invariants whose premise was never reached.
    ``symmetry`` remembers states by :meth:`TransitionSystem.canonical`; it is turned off (and
    a note says so) when progress properties are checked. ``deadlock=False`` accepts states
    with no enabled action. ``check_progress=False`` skips the progress properties.
    ``show_progress`` draws a live line on stderr (default: when stderr is a terminal; else,
    with ``progress_every``, a log line every that many seconds). ``time_limit`` (seconds)
    stops the search there with a "not refuted" verdict and a note. Running out of memory ends in
    :class:`OutOfMemory`, one line with the figures reached.
    """
    if max_depth is not None:
        whole_number("explore", "max_depth", max_depth, 0)
    if max_states is not None:
        whole_number("explore", "max_states", max_states, 1)
    if time_limit is not None:
        whole_number("explore", "time_limit", time_limit, 1)
    properties = tuple(model.progress()) if check_progress else ()
    notes = []
    if symmetry and properties:
        symmetry = False
        notes.append(SYMMETRY_OFF_FOR_LIVENESS)
    line = ProgressLine(enabled=show_progress, log_interval=progress_every)
    started, cpu_started = time.perf_counter(), time.process_time()
    deadline = None if time_limit is None else started + time_limit
    premises = PremiseCounter.of(tuple(model.invariants()), properties)
    search = _Search(model, symmetry, max_depth, max_states, deadlock, bool(properties), line, deadline, premises)
    try:
        return _explore(model, search, properties, notes, started, cpu_started, time_limit)
    except MemoryError:
        raise OutOfMemory.of(search, time.perf_counter() - started) from None
    finally:
        line.close()


class OutOfMemory(InputError):
    """The search ran out of memory: one line with how far it got and what to do."""

    @staticmethod
    def of(search: _Search, seconds: float) -> OutOfMemory:
        """The error for ``search``, whose store is freed first (so the message can be made)."""
        states, depth, transitions = len(search.seen), search.complete_depth, search.transitions
        search.seen.clear()
        search.expansions.clear()
        return OutOfMemory(
            "explore",
            "",
            f"memory ran out after {states:,} distinct states, depth {depth}, {transitions:,} transitions, "
            f"{seconds:.1f} s: bound the search (--max-states, --max-depth), keep symmetry on, or give more memory",
        )


def _explore(
    model: TransitionSystem[Any, Any],
    search: _Search,
    properties: tuple[Any, ...],
    notes: list[str],
    started: float,
    cpu_started: float,
    time_limit: float | None,
) -> ExploreResult:
    search.run()
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    if search.deadline is not None and search.truncated and time.perf_counter() > search.deadline:
        notes.append(f"stopped at the time limit of {time_limit:g} s: the figures are those reached by then")
    if search.interrupted:
        search.violation = None
        notes.append("interrupted (Ctrl-C): the figures are those reached by then")

    violation: Trace | None = None
    if search.violation is not None:
        index, kind, name, message = search.violation
        states, actions = search.path_to(index)
        violation = build_trace(model, kind, name, message, states, actions)
        verdict = Verdict.violated()
    else:
        verdict = cut_verdict(search.limit, search.complete_depth, len(search.seen))

    counts = () if search.premises is None else search.premises.counts()
    results = _check_properties(model, search, properties, violation is not None, counts)
    if any(result.counterexample is not None for result in results):
        verdict = Verdict.violated()
    distinct = len(search.seen)
    store = search.store_bytes()
    stats = Stats(
        distinct_states=distinct,
        transitions=search.transitions,
        depth=search.depth,
        seconds=round(seconds, 6),
        cpu_seconds=round(cpu_seconds, 6),
        states_per_second=round(distinct / seconds, 1) if seconds > 0 else 0.0,
        store_bytes=store,
        bytes_per_state=round(store / distinct, 1) if distinct else 0.0,
        peak_rss_bytes=peak_rss_bytes(),
        symmetry=search.symmetry,
    )
    return ExploreResult(
        model.name,
        dict(model.parameters),
        model.variant,
        verdict,
        violation,
        results,
        stats,
        tuple(notes),
        premises=tuple(c for c in counts if c.kind == INVARIANT),
    )


def _check_properties(
    model: TransitionSystem[Any, Any],
    search: _Search,
    properties: Iterable[Any],
    stopped: bool,
    counts: Iterable[PremiseCount] = (),
) -> tuple[PropertyResult, ...]:
    """One result per progress property, from the graph the search recorded; one whose
    premise held in no stored state is vacuous."""
    results = []
    graph = None if stopped else liveness.StateGraph.build(search.initial, search.expansions)
    reached = {c.name: c.states for c in counts if c.kind == PROGRESS}
    for prop in properties:
        trace = None
        premise_states = reached.get(prop.name)
        if graph is None:
            verdict = Verdict.unchecked("the search stopped at a safety violation")
        elif (lasso := liveness.find_lasso(graph, prop, model.action_class)) is not None:
            trace = build_trace(
                model, "progress", prop.name, lasso.message, lasso.states, lasso.actions, lasso.loop_start
            )
            verdict = Verdict.violated()
        elif premise_states == 0:
            verdict = Verdict.vacuous(search.limit, search.complete_depth, len(search.seen))
        else:
            verdict = cut_verdict(search.limit, search.complete_depth, len(search.seen))
        results.append(PropertyResult(prop.name, prop.describe(), verdict, trace, premise_states))
    return tuple(results)
