"""One partition of a parallel breadth-first search: the states it owns and their expansion.

The visited set is split into ``count`` partitions by a hash of each state's *partition key*:
the model's ``partition_key`` of the state's key (the state, or its canonical form with
symmetry on), by default the key itself; partition ``i`` owns the keys whose partition key
hashes to ``i`` modulo ``count`` (in fingerprint mode, whose stored fingerprint is). The
scheduler model's partition key is most of what its memo remembers allocation passes by, so
that one worker's memo answers for all the states sharing it. Every partition runs the same
steps, level by level, driven by the coordinator (:mod:`.parallel`), in a local process, a
Ray actor or the coordinator's own process:

1. :meth:`SearchPartition.expand` takes the successors of the frontier states it owns and sorts them
   into one outbox per owner, dropping successors it owns and has seen, and successors it
   has sent their owner before (the owner has seen those: they were stored at the level they
   were sent, unless a bound ended the run there);
2. the backend moves each outbox (:meth:`SearchPartition.outbox`) straight to its owner, never
   through the coordinator; the outboxes are compact: each channel between two partitions
   sends a record once and then only its number (:class:`~.wire.ChannelEncoder`);
3. :meth:`SearchPartition.merge` merges what every partition sent it and keeps the keys not seen
   yet and, for each, the first discovery in breadth-first order;
4. when a key is not its state (symmetry, fingerprints), an outbox carries keys and tags only,
   and the states follow in a second round for the keys that are new and were found first
   by the sender: the owner asks for them (:meth:`SearchPartition.request`), the sender answers
   (:meth:`SearchPartition.reply`). About half the candidates a partition sends are seen already
   or found first by another, and a state costs more to encode and decode than its key;
5. :meth:`SearchPartition.receive` takes those states, sorts the new states by tag and checks the
   invariants;
6. :meth:`SearchPartition.commit` stores the new states up to the coordinator's cut (a state bound),
   which become the next frontier.

Between the steps a worker process that would wait (for its peers, or for the coordinator)
computes the successors of the next level's states ahead (:class:`Lookahead`).

Ties are broken as one worker breaks them: a state's *rank* orders the frontier as the
one-worker search orders it (the order in which states were first reached), and a successor's
*tag* ``(rank of parent, position in the parent's successor list)`` orders the candidates of
the next level. The first discovery of a state is the one with the least tag, which is the
one a single worker meets first; so the parents recorded, and the traces rebuilt from them,
are the same for any number of partitions. The next level's ranks are ``rank * base +
position``, with ``base`` above every successor list's length, which keeps that order.
"""

from __future__ import annotations

import gc
import os
import resource
import sys
import time
from array import array
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.checks.explore.bfs import GC_FIRST_GENERATION, _keys_bytes
from yarnspec.checks.explore.coverage import Coverage
from yarnspec.checks.explore.fingerprint import KeyEncoder, fingerprint
from yarnspec.checks.explore.model_source import ModelSource
from yarnspec.checks.explore.partition_snapshot import ROOT, Held, Restored, decode_held, encode_held, needed_states
from yarnspec.checks.explore.state_data import FormatError, printable
from yarnspec.checks.explore.timing import Clock
from yarnspec.checks.explore.wire import ChannelDecoder, ChannelEncoder, dumps, loads
from yarnspec.spec.transition_system import partition_key_of, violation_check

#: Routing by Python's ``hash`` of the key (every worker runs with the same ``PYTHONHASHSEED``).
ROUTE_BY_HASH = "hash"
#: Routing by the stable fingerprint of the key's encoding (for keys whose hash is per-process).
ROUTE_BY_FINGERPRINT = "fingerprint"

#: Young collections between two collections of the middle generation in a worker process
#: (Python's default is 10). A worker keeps what a level needs until the level ends (records,
#: outboxes, states received, successors computed ahead), so much of what survives a young
#: collection dies within a few more; collecting the middle generation as often as usual
#: traversed it again and promoted it to the old one, whose full collections traversed it once
#: more, for no cycle. To depth 22 of ``no-leak`` (symmetry on) the two workers' collectors took
#: 7.3 s of their 62.5 s of CPU with Python's thresholds, 4.0 s with 50 here, 2.8 s with 200
#: (one worker's: 1.8 s of 47.6 s).
GC_MIDDLE_GENERATION = 100

#: A candidate's tag: (rank of the parent, position in its successor list).
Tag = tuple[int, int]


@dataclass(frozen=True)
class SearchOptions:
    """What every partition must agree on."""

    symmetry: bool = False
    fingerprints: bool = False
    deadlock: bool = True
    coverage: bool = False
    routing: str = ROUTE_BY_HASH
    profile: bool = False  # time the phases (:mod:`.timing`)


@dataclass(frozen=True)
class Expansion:
    """What :meth:`SearchPartition.expand` reports to the coordinator (the outboxes stay with the
    partition): the transitions, the longest successor list, the first deadlocked state
    ``(rank, local index)`` and whether the deadline stopped it."""

    transitions: int
    longest: int
    deadlock: tuple[int, int] | None
    timed_out: bool


@dataclass(frozen=True)
class ReceivedStates:
    """What :meth:`SearchPartition.receive` reports: the new states found and the first one (by
    tag) violating an invariant, as ``(tag, name, message)``."""

    new: int
    violation: tuple[Tag, str, str] | None


@dataclass(frozen=True)
class Prepared:
    """A state's successors computed ahead: how many, the list itself (only when coverage is
    counted) and ``(position, successor, key, owner)`` of those that may still be new."""

    length: int
    listed: list[Any] | None
    fresh: list[tuple[int, Any, Hashable, int]]


class Lookahead:
    """Successor lists computed ahead of the level that needs them, while the partition would
    otherwise wait (for its peers' outboxes, or for the coordinator's next call).

    A state's successors, and each successor's key and owner, depend on that state alone, so
    they can be computed as soon as the state is known to be a candidate of the next level:
    the candidates this partition found itself once it has expanded, all of them once it has
    received, the next frontier once it has committed. Each is filed under a *slot* (its key
    before the commit, its local index after) with the state it was computed for; it is used
    only for that same state (with symmetry on another partition may bring the same key with
    a smaller tag and another state, and then the list is computed again). So the search
    visits, counts and reports exactly what it would without it.

    Only the successors that may still be new are kept (``fresh(key, owner)``: those the
    search has seen or sent already stay so), with their positions; most successors are not,
    and holding them all for a level would cost more memory and garbage collection than
    computing ahead saves. The whole list is kept only when ``whole`` (coverage counts it)."""

    def __init__(
        self,
        successors: Callable[[Any], Iterable[tuple[Any, Any]]],
        owner_of: Callable[[Any], tuple[Hashable, int]],
        fresh: Callable[[Hashable, int], bool],
        whole: bool,
    ) -> None:
        self._successors, self._owner_of, self._fresh, self._whole = successors, owner_of, fresh, whole
        self._todo: list[tuple[Hashable, Any]] = []  # (slot, state), taken from the end
        self._done: dict[Hashable, tuple[Any, Prepared]] = {}

    def plan(self, items: Sequence[tuple[Hashable, Any]]) -> None:
        """Compute these next (in this order), instead of what was planned before."""
        done = self._done
        self._todo = [item for item in reversed(items) if item[0] not in done]

    def step(self) -> bool:
        """Compute one planned state's successors; ``False`` when nothing is planned."""
        if not self._todo:
            return False
        slot, state = self._todo.pop()
        listed = self._successors(state)
        if not isinstance(listed, list):
            listed = list(listed)
        owner_of, fresh = self._owner_of, self._fresh
        routed = (
            (position, target, *owner_of(target)) for position, (_, target) in enumerate(listed) if target is not state
        )  # a stuttering step's target is the state itself, stored already
        kept = [entry for entry in routed if fresh(entry[2], entry[3])]
        self._done[slot] = (state, Prepared(len(listed), listed if self._whole else None, kept))
        return True

    def take(self, slot: Hashable, state: Any) -> Prepared | None:
        """What was computed for ``state`` under ``slot``, if anything."""
        entry = self._done.pop(slot, None)
        if entry is None or (entry[0] is not state and entry[0] != state):
            return None
        return entry[1]

    def refile(self, moves: Sequence[tuple[Hashable, Hashable, Any]]) -> None:
        """Move the lists of ``(old slot, new slot, state)`` to their new slots, drop the rest,
        and plan the states that have none."""
        done: dict[Hashable, tuple[Any, Prepared]] = {}
        todo = []
        for old, new, state in moves:
            entry = self._done.get(old)
            if entry is not None and (entry[0] is state or entry[0] == state):
                done[new] = entry
            else:
                todo.append((new, state))
        self._done, self._todo = done, todo[::-1]

    def clear(self) -> None:
        """Forget everything (a restore, or a run stopped within a level)."""
        self._todo, self._done = [], {}


class SearchPartition:
    """One partition (see the module docstring); built from a :class:`ModelSource`."""

    def __init__(self, index: int, count: int, source: ModelSource, options: SearchOptions) -> None:
        self.index, self.count, self.options = index, count, options
        self.clock = Clock(options.profile)
        with self.clock.phase("start"):
            self.model = source.build()
        self._canonical = self.model.canonical if options.symmetry else None
        self._part = partition_key_of(self.model)
        self._violation = violation_check(self.model)
        self._encoder = KeyEncoder()
        self.seen: set[Hashable] = set()
        self.parent_part = array("i")
        self.parent_index = array("q")
        self.position = array("I")
        self.frontier: list[tuple[int, int, Any]] = []  # (rank, local index, state), by rank
        self.coverage = Coverage.of(self.model) if options.coverage else None
        self._expanded: list[tuple[int, int]] = []  # (rank, successors) of this level's parents
        self._own_box: dict[Hashable, tuple[Any, ...]] = {}
        self._outboxes: list[bytes] = [b""] * count
        self._sent: set[Hashable] = set()  # keys sent to other partitions (they have seen them)
        self._send_states = options.symmetry or options.fingerprints  # a key is not its state
        self._held: list[dict[Tag, Any]] = [{} for _ in range(count)]  # states offered, by tag, per owner
        self._best: dict[Hashable, tuple[Any, ...]] = {}  # this level's candidates, by key
        # the (key, record) of the states asked for, per sender
        self._asked: list[list[tuple[Hashable, tuple[Any, ...]]]] = [[] for _ in range(count)]
        # two channels to each other partition: candidates (keys and tags), and states asked for
        self._encoders = [ChannelEncoder() for _ in range(count)]
        self._decoders = [ChannelDecoder() for _ in range(count)]
        self._state_encoders = [ChannelEncoder() for _ in range(count)]
        self._state_decoders = [ChannelDecoder() for _ in range(count)]
        self._new: list[tuple[Tag, Hashable, tuple[Any, ...]]] = []
        self._level_coverage: Coverage | None = None  # this level's counts, kept at commit
        self.ahead = Lookahead(self.model.successors, self.key, self._fresh, self.coverage is not None)
        self.step_ahead = self.clock.timed("ahead", self.ahead.step)
        """Compute one state's successors ahead (:class:`Lookahead`): what a worker does while
        it waits; ``False`` when there is nothing to compute."""
        self._cpu_started = time.process_time()

    # -- keys and owners --------------------------------------------------------------------

    def key(self, state: Any) -> tuple[Hashable, int]:
        """The key stored for ``state`` and the partition that owns it (:meth:`_owner`)."""
        key = state if self._canonical is None else self._canonical(state)
        if not self.options.fingerprints:
            return key, self._owner(key)
        # The stored fingerprint routes the state: fingerprinting the partition key as well
        # cost more (23 us a successor for the scheduler model) than its memo saved.
        stored = fingerprint(self._encoder.encode(key))
        return stored, stored % self.count

    def _owner(self, key: Hashable) -> int:
        """The partition that owns ``key`` (not a fingerprint): chosen by its partition key (the
        model's ``partition_key``, by default the key itself), hashed or fingerprinted as routed."""
        if self.count == 1:
            return 0
        part = key if self._part is None else self._part(key)
        if self.options.routing == ROUTE_BY_HASH:
            return hash(part) % self.count
        return fingerprint(self._encoder.encode(part)) % self.count

    def _fresh(self, key: Hashable, owner: int) -> bool:
        """Whether a successor with ``key`` may still be new: not seen if this partition owns
        it, not sent before if another does (both stay so)."""
        return key not in (self.seen if owner == self.index else self._sent)

    def probe(self, limit: int) -> list[int]:
        """The hashes of the partition keys of the first ``limit`` states reached breadth
        first: the coordinator compares them between processes to see whether hashes agree."""
        with self.clock.phase("probe"):
            return self._probe(limit)

    def _probe(self, limit: int) -> list[int]:
        states = list(self.model.initial_states())
        owners: list[int] = []
        done = 0
        while done < len(states) and len(states) < limit:
            states.extend(target for _, target in self.model.successors(states[done]))
            done += 1
        for state in states[:limit]:
            key = state if self._canonical is None else self._canonical(state)
            owners.append(hash(key if self._part is None else self._part(key)) % 2**61)
        return owners

    def set_routing(self, routing: str) -> None:
        """Route by ``routing`` from now on (before anything is stored)."""
        self.options = SearchOptions(**{**self.options.__dict__, "routing": routing})

    # -- the level steps --------------------------------------------------------------------

    def seed(self, data: bytes) -> int:
        """Store the initial states this partition owns; ``data`` holds ``(place, state)``
        for the distinct initial states in order (their rank is their index), as :func:`dumps`
        wrote them."""
        initial: Sequence[tuple[int, Any]] = loads(data)
        for rank, (place, state) in enumerate(initial):
            key, owner = self.key(state)
            if owner == self.index:
                self.frontier.append((rank, self._store(key, ROOT, 0, place), state))
        return len(self.frontier)

    def _store(self, key: Hashable, parent_part: int, parent_index: int, position: int) -> int:
        self.seen.add(key)
        self.parent_part.append(parent_part)
        self.parent_index.append(parent_index)
        self.position.append(position)
        return len(self.parent_part) - 1

    def expand(self, deadline: float | None) -> Expansion:
        """Expand the frontier (see the module docstring); stop early past ``deadline``
        (``time.time()``)."""
        with self.clock.phase("expand"):
            return self._expand(deadline)

    def _expand(self, deadline: float | None) -> Expansion:
        clock, model = self.clock, self.model
        successors, owner_of = clock.timed("successors", model.successors), clock.timed("key", self.key)
        coverage = self._level_coverage = None if self.coverage is None else Coverage(self.coverage.kinds)
        boxes: list[dict[Hashable, tuple[Any, ...]]] = [{} for _ in range(self.count)]
        own, seen, sent, me = boxes[self.index], self.seen, self._sent, self.index
        send_states = self._send_states
        transitions = longest = 0
        deadlock = None
        self._expanded = []
        take = self.ahead.take
        for done, (rank, index, state) in enumerate(self.frontier):
            prepared = take(index, state)
            listed: list[Any] | None
            if prepared is None:
                listed = list(successors(state))
                length = len(listed)
                # a stuttering step leads to the state itself, stored here: no key to compute
                routed = [
                    (position, target, *owner_of(target))
                    for position, (_, target) in enumerate(listed)
                    if target is not state
                ]
            else:
                length, listed, routed = prepared.length, prepared.listed, prepared.fresh
            if coverage is not None:
                assert listed is not None
                coverage.count(model, listed)
            self._expanded.append((rank, length))
            transitions += length
            longest = max(longest, length)
            if length == 0 and self.options.deadlock and deadlock is None:
                deadlock = (rank, index)
            # Hashing a big key costs more than building a record: each successor's key is
            # hashed once if it was seen or sent before (most are), twice otherwise.
            for position, target, key, owner in routed:
                if owner == me:
                    if key not in seen:
                        own.setdefault(key, (rank, position, me, index, target if send_states else None))
                else:
                    before = len(sent)
                    sent.add(key)
                    if len(sent) > before:
                        boxes[owner][key] = (rank, position, me, index, target if send_states else None)
            if deadline is not None and not done % 64 and time.time() > deadline:
                return Expansion(transitions, longest, deadlock, True)
        self._own_box = own
        self.ahead.plan([(key, self._state(key, record)) for key, record in own.items()])
        with clock.phase("encode"):
            self._outboxes = [b"" if owner == me else self._offer(owner, box) for owner, box in enumerate(boxes)]
        return Expansion(transitions, longest, deadlock, False)

    def _offer(self, owner: int, box: dict[Hashable, tuple[Any, ...]]) -> bytes:
        """The outbox for ``owner``: each candidate's key and record; when a key is not its
        state, without the state, which is held until the owner asks for it (:meth:`reply`)."""
        if not self._send_states:
            return self._encoders[owner].encode(list(box.items()))
        self._held[owner] = {(record[0], record[1]): record[4] for record in box.values()}
        return self._encoders[owner].encode([(key, record[:4]) for key, record in box.items()])

    def outbox(self, owner: int) -> bytes:
        """This level's outbox for partition ``owner`` (once, after :meth:`expand`)."""
        data, self._outboxes[owner] = self._outboxes[owner], b""
        return data

    def merge(self, *inboxes: bytes) -> None:
        """Merge the outboxes addressed to this partition, one from each partition in order
        (its own is ignored): the first discovery of each key not seen yet (see the module
        docstring). The states of those found by other partitions are asked for next
        (:meth:`request`), when a key is not its state."""
        seen = self.seen
        with self.clock.phase("merge"):
            best = self._own_box  # not seen (expand left out the seen), and nothing was stored since
            self._own_box = {}
            for sender, data in enumerate(inboxes):
                if sender == self.index:
                    continue
                for key, record in self._decoders[sender].decode(data):
                    if key in seen:
                        continue
                    known = best.setdefault(key, record)
                    if known is not record and record[:2] < known[:2]:
                        best[key] = record
            self._best = best
            if self._send_states:
                asked: list[list[tuple[Hashable, tuple[Any, ...]]]] = [[] for _ in range(self.count)]
                for key, record in best.items():
                    if len(record) == 4:  # found by another partition, state held there
                        asked[record[2]].append((key, record))
                self._asked = asked

    def request(self, sender: int) -> bytes:
        """The tags of the candidates from ``sender`` whose states this partition needs (the
        new states ``sender`` found first), for :meth:`reply`."""
        return dumps([record[:2] for _, record in self._asked[sender]])

    def reply(self, owner: int, request: bytes) -> bytes:
        """The states ``owner`` asked for (:meth:`request`), in the order asked."""
        held, self._held[owner] = self._held[owner], {}
        with self.clock.phase("encode"):
            return self._state_encoders[owner].encode([held[tag] for tag in loads(request)])

    def receive(self, *replies: bytes) -> ReceivedStates:
        """Take the states asked for (one :meth:`reply` from each partition in order, its own
        ignored), then sort the new states by tag and check the invariants."""
        clock = self.clock
        best = self._best
        with clock.phase("merge"):
            if self._send_states:
                for sender, data in enumerate(replies):
                    if sender != self.index:
                        for (key, record), state in zip(self._asked[sender], self._state_decoders[sender].decode(data)):
                            best[key] = (*record, state)
                self._asked = [[] for _ in range(self.count)]
        self._best = {}
        with clock.phase("sort"):
            self._new = sorted((((r[0], r[1]), key, r) for key, r in best.items()), key=lambda item: item[0])
        violation = None
        check = self._violation
        if check is not None:
            with clock.phase("invariants"):
                for tag, key, record in self._new:
                    fault = check(self._state(key, record))
                    if fault is not None:
                        violation = (tag, *fault)
                        break
        self.ahead.plan([(key, self._state(key, record)) for _, key, record in self._new])
        return ReceivedStates(len(self._new), violation)

    @staticmethod
    def _state(key: Hashable, record: tuple[Any, ...]) -> Any:
        return key if record[4] is None else record[4]

    def tags(self, limit: int) -> list[Tag]:
        """The least ``limit`` tags of the new states (the coordinator's cut for a state bound)."""
        return [tag for tag, _, _ in self._new[:limit]]

    def count_up_to(self, threshold: Tag) -> int:
        """How many new states have a tag up to ``threshold``."""
        return sum(1 for tag, _, _ in self._new if tag <= threshold)

    def transitions_before(self, rank: int) -> int:
        """The transitions of this level's parents ranked before ``rank``."""
        return sum(length for parent, length in self._expanded if parent < rank)

    def commit(self, threshold: Tag | None, base: int) -> tuple[int, int | None]:
        """Store the new states with a tag up to ``threshold`` (all when ``None``) as the next
        frontier; returns how many, and the local index of the state tagged ``threshold``."""
        with self.clock.phase("commit"):
            return self._commit(threshold, base)

    def _commit(self, threshold: Tag | None, base: int) -> tuple[int, int | None]:
        frontier = []
        moves = []
        last = None
        for tag, key, record in self._new:
            if threshold is not None and tag > threshold:
                break
            index = self._store(key, record[2], record[3], record[1])
            state = self._state(key, record)
            frontier.append((tag[0] * base + tag[1], index, state))
            moves.append((key, index, state))
            if tag == threshold:
                last = index
        self._new = []
        self.frontier = frontier
        self.ahead.refile(moves)
        if self.coverage is not None and self._level_coverage is not None:
            self.coverage = self.coverage.merge([self._level_coverage])
            self._level_coverage = None
        return len(frontier), last

    # -- reading back -----------------------------------------------------------------------

    def entry(self, index: int) -> tuple[int, int, int]:
        """``(parent partition, parent index, position)`` of the state stored at ``index``."""
        return self.parent_part[index], self.parent_index[index], self.position[index]

    def figures(self) -> tuple[int, int, float, int, int, Coverage | None, dict[str, float] | None]:
        """States stored, bytes of the store, CPU seconds used, peak RSS, process id, coverage
        and the seconds per phase (``None`` unless profiling, see :mod:`.timing`)."""
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
        links = sum(a.itemsize * len(a) for a in (self.parent_part, self.parent_index, self.position))
        cpu = time.process_time() - self._cpu_started
        return len(self.seen), _keys_bytes(self.seen) + links, cpu, peak, os.getpid(), self.coverage, self._profile()

    def _profile(self) -> dict[str, float] | None:
        """The clock's report, with the expansion's time outside successors, keys and encoding."""
        report = self.clock.report()
        if report is not None:
            inside = sum(report.get(name, 0.0) for name in ("successors", "key", "encode"))
            report["expand other"] = report.pop("expand", 0.0) - inside
        return report

    def own_process(self) -> None:
        """Tune the process this partition runs in alone (a worker process or a Ray actor): the
        cyclic garbage collector runs less often, its young generation as in the one-worker
        search (:data:`~.bfs.GC_FIRST_GENERATION`), its middle one after
        :data:`GC_MIDDLE_GENERATION` young collections."""
        gc.set_threshold(GC_FIRST_GENERATION, GC_MIDDLE_GENERATION, gc.get_threshold()[2])

    def snapshot(self) -> bytes:
        """Everything this partition holds between levels, for a checkpoint: one segment of
        the data encoding (:func:`~.partition_snapshot.encode_held`)."""
        held = Held(self.seen, self.parent_part, self.parent_index, self.position, self.frontier, self.coverage)
        return encode_held(self.index, held, self.options.fingerprints)

    def restore(self, data: bytes) -> Restored:
        """Continue from a :meth:`snapshot`, once it is checked (the module
        :mod:`.partition_snapshot`'s checks, then with the model: every frontier state's key
        was visited here and is owned here, and the model can expand it). A segment that
        fails a check changes nothing and is reported in :attr:`Restored.fault`."""
        model = self.model
        kinds = None if self.coverage is None else self.coverage.kinds
        roots = {__name__.partition(".")[0], type(model).__module__.partition(".")[0]}
        try:
            initial = len(list(model.initial_states()))
            held = decode_held(data, self.index, self.count, self.options.fingerprints, kinds, initial, roots)
        except FormatError as exc:
            return Restored(fault=f"partition {self.index}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a value whose hash or comparison fails: a forged file
            return Restored(
                fault=f"partition {self.index}: cannot read it ({type(exc).__name__}: {printable(str(exc)[:200])})"
            )
        fault = self._check_frontier(held)
        if fault is not None:
            return Restored(fault=f"partition {self.index}: {fault}")
        self.seen, self.frontier = held.seen, held.frontier
        self.parent_part, self.parent_index, self.position = held.parent_part, held.parent_index, held.position
        self._best, self._held = {}, [{} for _ in range(self.count)]
        if held.coverage is not None:
            self.coverage = held.coverage
        return Restored(len(held.seen), len(held.frontier), needed_states(held, self.count))

    def _check_frontier(self, held: Held) -> str | None:
        """Why ``held``'s frontier cannot be this partition's (see :meth:`restore`), or
        ``None``; its successors are then computed ahead for the first level."""
        seen, ahead = self.seen, self.ahead
        self.seen = held.seen  # what the look-ahead's freshness test reads
        ahead.clear()
        try:
            for rank, _, state in held.frontier:
                key, owner = self.key(state)
                if owner != self.index:
                    return f"the frontier state of rank {rank} belongs to partition {owner}: it was routed otherwise"
                if key not in held.seen:
                    return f"the frontier state of rank {rank} is not among the visited keys"
            ahead.plan([(index, state) for _, index, state in held.frontier])
            while ahead.step():
                pass
        except Exception as exc:  # noqa: BLE001 - a state the model cannot read is a damaged checkpoint
            ahead.clear()
            return f"a frontier state the model cannot expand ({type(exc).__name__}: {printable(str(exc)[:200])})"
        finally:
            self.seen = seen
        return None
