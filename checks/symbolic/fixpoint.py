"""The ideal-allocation fixpoint of one level as a transition system (semantics A.5, A.5.1).

``yarnspec.impl.preemption.ideal.distribute`` runs two loops: the guarantee-weighted fixpoint
over the children with a guarantee, then, if anything is left, the equal-share fixpoint over
the others. Here one *step* is one iteration of whichever loop is running (one group of
equally most-under-served queues served in tree order), or the move from the first loop to
the second, or the end. On the concrete backend the group is served in the order Hadoop's
``java.util.PriorityQueue`` polls it (the heap array travels in :attr:`State.heap`, kept by
:class:`~yarnspec.impl.java.priority_queue.JavaPriorityQueue`), as the reference does; the
symbolic backend serves a group in tree order. That order only matters when what is
unassigned runs out inside a group of tied queues, and no property proved here depends on
which tied queue gets the last of it (each offer is capped at what is left); the
equivalence test compares the concrete backend, heap order and all, with the reference.
:meth:`Fixpoint.initial_state` is the state before the first
iteration; :meth:`Fixpoint.step` maps a state to the next, and a state with ``done`` set maps
to itself.

The proofs use the step as a transition relation (induction over any number of iterations);
counterexamples are searched by unrolling it; :meth:`Fixpoint.run` iterates it on concrete
inputs to the end, which is what the equivalence test compares with the reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from yarnspec.checks.symbolic.arith import Arith, Cond, Symbolic, Vec, add, choose, clamp0, cmin, sub, total
from yarnspec.checks.symbolic.calc import Calc, Ratio, ratio_at_least_one, ratio_equal, ratio_less
from yarnspec.checks.symbolic.floats import Rounding, offer_closed_form, offer_facts
from yarnspec.checks.symbolic.model import Abstraction, Child, Level, Mode
from yarnspec.impl.java.priority_queue import JavaPriorityQueue


@dataclass(frozen=True)
class State:
    """Where the fixpoint is: every child's ideal, which children still ask, what is still
    unassigned, whether the equal-share (zero-guarantee) pass has started, and whether the
    level is finished."""

    ideal: tuple[Vec, ...]
    asking: tuple[Cond, ...]
    unassigned: Vec
    equal_pass: Cond
    done: Cond
    heap: tuple[int, ...] = ()


class Fixpoint:
    """The fixpoint of one level under one calculator and mode (see the module docstring).

    Figures that depend only on the inputs are computed once: which children take part in the
    weighted pass (guarantee > 0), their untouchable extra (A.4), their initial ideal and
    whether they ask at first (A.5.1).
    """

    def __init__(
        self, calc: Calc, level: Level, mode: Mode, rounding: Rounding, abstraction: Abstraction = Abstraction()
    ) -> None:
        self.calc = calc
        self.A: Arith = calc.A
        self.level = level
        self.mode = mode
        self.rounding = rounding
        self.abstraction = abstraction
        ref = level.resource
        zero = calc.zero()
        self.weighted: tuple[Cond, ...] = tuple(calc.greater(ref, c.guaranteed, zero) for c in level.children)
        self.untouchable: tuple[Vec, ...] = tuple(untouchable(calc, ref, c) for c in level.children)
        self.initial: tuple[Vec, ...] = tuple(
            initial_ideal(calc, ref, c, u) for c, u in zip(level.children, self.untouchable)
        )
        self.asks_at_first: tuple[Cond, ...] = tuple(
            calc.less(ref, i, add(c.used, c.pending)) for c, i in zip(level.children, self.initial)
        )

    @property
    def size(self) -> int:
        """The number of children."""
        return len(self.level.children)

    def initial_state(self) -> State:
        """Before the first iteration of the weighted loop: its members start at their initial
        ideal, the others at 0 (a fresh record)."""
        A, calc = self.A, self.calc
        zero = calc.zero()
        ideal = tuple(choose(A, w, i, zero) for w, i in zip(self.weighted, self.initial))
        unassigned = sub(self.level.resource, total(A, ideal, calc.dims))
        asking = tuple(A.all((w, a)) for w, a in zip(self.weighted, self.asks_at_first))
        return State(ideal, asking, unassigned, A.any(()), A.any(()), self._new_heap(ideal, False, asking))

    def guard(self, state: State) -> Cond:
        """The loop condition: some queue asks and something is unassigned (A.5.1)."""
        return self.A.all((self.A.any(state.asking), self.calc.positive(self.level.resource, state.unassigned)))

    def step(self, state: State) -> State:
        """One iteration, the start of the equal-share pass, or the end (module docstring)."""
        A = self.A
        served = self.serve(state)
        started = self.start_equal_pass(state)
        finished = replace(state, done=A.all(()))
        enter = A.all((A.neg(state.equal_pass), self.equal_pass_runs(state)))
        after_loop = _choose_state(A, enter, started, finished)
        moved = _choose_state(A, self.guard(state), served, after_loop)
        return _choose_state(A, state.done, state, moved)

    def equal_pass_runs(self, state: State) -> Cond:
        """Whether the zero-guarantee pass runs after the weighted loop: some child has no
        guarantee and something is left (A.5 step 3)."""
        A = self.A
        return A.all(
            (A.any(A.neg(w) for w in self.weighted), self.calc.positive(self.level.resource, state.unassigned))
        )

    def start_equal_pass(self, state: State) -> State:
        """The zero-guarantee children take their initial ideal out of what is left."""
        A, calc = self.A, self.calc
        ideal = tuple(choose(A, w, s, i) for w, s, i in zip(self.weighted, state.ideal, self.initial))
        taken = total(A, (choose(A, w, calc.zero(), i) for w, i in zip(self.weighted, self.initial)), calc.dims)
        asking = tuple(A.all((A.neg(w), a)) for w, a in zip(self.weighted, self.asks_at_first))
        return State(
            ideal, asking, sub(state.unassigned, taken), A.all(()), A.any(()), self._new_heap(ideal, True, asking)
        )

    def _concrete(self) -> bool:
        return not isinstance(self.A, Symbolic)

    def _heap(self, ideal: Sequence[Vec], equal_pass: Cond, array: Sequence[int]) -> JavaPriorityQueue[int]:
        """Concrete only: Hadoop's priority queue of asking children (by index), ordered by
        ``TQComparator`` on ``ideal``, holding ``array`` as its heap array."""

        def compare(q: int, p: int) -> int:
            q_first = self.key_at_most_in(ideal, equal_pass, q, p)
            p_first = self.key_at_most_in(ideal, equal_pass, p, q)
            return 0 if q_first and p_first else -1 if q_first else 1

        return JavaPriorityQueue.of_heap(compare, array)

    def _new_heap(self, ideal: Sequence[Vec], equal_pass: bool, asking: Sequence[Cond]) -> tuple[int, ...]:
        """The heap after adding the asking children in tree order (concrete only)."""
        if not self._concrete():
            return ()
        heap = self._heap(ideal, equal_pass, ())
        for q, asks in enumerate(asking):
            if asks:
                heap.add(q)
        return heap.array()

    def key_at_most(self, state: State, q: int, p: int) -> Cond:
        """Whether queue ``q`` is at least as under-served as ``p``: the order of
        ``(ratio >= 1, -priority, ratio)`` (Hadoop ``TQComparator`` with priorities)."""
        return self.key_at_most_in(state.ideal, state.equal_pass, q, p)

    def key_at_most_in(self, ideal: Sequence[Vec], equal_pass: Cond, q: int, p: int) -> Cond:
        """:meth:`key_at_most` for these ideals."""
        A = self.A
        rq, rp = self.ratio_in(ideal, equal_pass, q), self.ratio_in(ideal, equal_pass, p)
        oq, op = ratio_at_least_one(A, rq), ratio_at_least_one(A, rp)
        pq, pp = self.level.children[q].priority, self.level.children[p].priority
        ratio_le = A.any((ratio_less(A, rq, rp), ratio_equal(A, rq, rp)))
        same_side = oq == op
        return A.any(
            (
                A.all((A.neg(oq), op)),
                A.all((same_side, A.any((pq > pp, A.all((pq == pp, ratio_le)))))),
            )
        )

    def ratio(self, state: State, q: int) -> Ratio:
        """``ideal / guaranteed``, or ``Integer.MAX_VALUE`` in the zero-guarantee pass."""
        return self.ratio_in(state.ideal, state.equal_pass, q)

    def ratio_in(self, ideal: Sequence[Vec], equal_pass: Cond, q: int) -> Ratio:
        """:meth:`ratio` for these ideals."""
        r = self.calc.ratio(self.level.resource, ideal[q], self.level.children[q].guaranteed)
        return Ratio(r.num, r.den, equal_pass)

    def serve(self, state: State) -> State:
        """One loop iteration: the most under-served asking queues, in tree order, are each
        offered their share of what was unassigned when the iteration began (A.5.1 step 3)."""
        A, calc = self.A, self.calc
        ref = self.level.resource
        guard = self.guard(state)
        heap: JavaPriorityQueue[int] | None = None
        if self._concrete():
            heap = self._heap(state.ideal, state.equal_pass, state.heap)
            polled = self._poll_group(heap, state)
            group: list[Cond] = [q in polled for q in range(self.size)]
            order: Sequence[int] = polled
        else:
            group = self.group(state, guard)
            order = range(self.size)
        asking_total = total(
            A, (choose(A, a, c.guaranteed, calc.zero()) for a, c in zip(state.asking, self.level.children)), calc.dims
        )
        asking_count = A.count(state.asking)
        offered_from = state.unassigned
        unassigned = state.unassigned
        ideal = list(state.ideal)
        asking = list(state.asking)
        alive: Cond = A.all(())
        for q in order:
            child = self.level.children[q]
            positive = calc.any_major_positive(unassigned)
            serving = A.all((group[q], alive, positive))
            alive = A.all((alive, A.any((A.neg(group[q]), positive))))
            avail = self.offer_amount(state, child, offered_from, asking_total, asking_count)
            avail = cmin(A, avail, unassigned)
            accepted = self.accept(child, ideal[q], avail)
            ideal[q] = choose(A, serving, add(ideal[q], accepted), ideal[q])
            asking[q] = A.ite(group[q], A.all((serving, calc.positive(ref, accepted))), asking[q])
            unassigned = choose(A, serving, clamp0(A, sub(unassigned, accepted)), unassigned)
            if heap is not None and asking[q]:
                heap = self._heap(ideal, state.equal_pass, heap.array())
                heap.add(q)
        array = heap.array() if heap is not None else ()
        return State(tuple(ideal), tuple(asking), unassigned, state.equal_pass, state.done, array)

    def _poll_group(self, heap: JavaPriorityQueue[int], state: State) -> list[int]:
        """``getMostUnderservedQueues`` on the concrete heap: poll while the next head ties."""
        group: list[int] = []
        while heap:
            first = heap.remove()
            group.append(first)
            following = heap.peek()
            if following is None or not self.key_at_most(state, following, first):
                break
        return group

    def group(self, state: State, guard: Cond) -> list[Cond]:
        """Per child: whether it is in this iteration's group, the asking queues whose key
        is smallest (ties in tree order). With :attr:`Abstraction.groups` (symbolic only):
        any non-empty set of asking queues."""
        A = self.A
        n = self.size
        if isinstance(A, Symbolic) and self.abstraction.groups:
            picks = [A.fresh_bool("group") for _ in range(n)]
            chosen = [A.all((guard, state.asking[q], picks[q])) for q in range(n)]
            A.side.append(A.implies(guard, A.any(chosen)))
            return chosen
        return [
            A.all(
                (
                    guard,
                    state.asking[q],
                    *(A.implies(state.asking[p], self.key_at_most(state, q, p)) for p in range(n) if p != q),
                )
            )
            for q in range(n)
        ]

    def offer_amount(
        self, state: State, child: Child, offered_from: Vec, asking_total: Vec, asking_count: object
    ) -> Vec:
        """``roundUp(unassigned x share)``: shares ``g_i / sum g_i`` over the asking queues in
        the weighted pass, ``1/n`` in the equal pass (single precision, :mod:`.floats`). With
        :attr:`Abstraction.offers`, any amount the offer lemma allows."""
        A = self.A
        dominant = self.calc.dominant
        amounts = []
        for i in range(self.calc.dims):
            u = offered_from[i]
            num = A.ite(state.equal_pass, A.num(1), child.guaranteed[i])
            den = A.ite(state.equal_pass, asking_count, asking_total[i])
            if self.abstraction.offers:
                exact = partial(offer_closed_form, A, dominant, u, num, den, self.rounding)
                amounts.append(A.fresh("offer", exact, offer_facts(A, dominant, u, num, den)))
            else:
                amounts.append(offer_closed_form(A, dominant, u, num, den, self.rounding))
        return tuple(amounts)

    def accept(self, child: Child, ideal: Vec, avail: Vec) -> Vec:
        """What the queue takes of an offer (``TempQueuePerPartition.offer``, A.5.1):
        ``componentwiseMin(max(0, max - ideal), min(avail, used + need - ideal))``; a leaf in
        normal mode at most ``max(used, guaranteed) - ideal``; clamped to ``[0, avail]``."""
        A, calc = self.A, self.calc
        ref = self.level.resource
        room = clamp0(A, sub(child.maximum, ideal))
        need = child.pending if self.mode.reserved else child.pending_net_reserved
        accepted = cmin(A, room, calc.min(ref, avail, sub(add(child.used, need), ideal)))
        if not self.mode.balance:
            cap = clamp0(A, sub(calc.max(ref, child.used, child.guaranteed), ideal))
            accepted = calc.min(ref, accepted, cap)
        return cmin(A, clamp0(A, accepted), avail)

    def run(self, limit: int = 100_000) -> State:
        """Iterate to the end on concrete inputs; ``RuntimeError`` if ``limit`` steps do not
        suffice (the loop provably ends: :mod:`.properties`, termination)."""
        state = self.initial_state()
        for _ in range(limit):
            if state.done:
                return state
            state = self.step(state)
        raise RuntimeError(f"the fixpoint did not end within {limit} steps")


def untouchable(calc: Calc, ref: Vec, child: Child) -> Vec:
    """A leaf's untouchable extra (A.4): ``used - guaranteed`` (0 if that compares below 0)
    when preemption is disabled, else 0."""
    A = calc.A
    extra = sub(child.used, child.guaranteed)
    extra = choose(A, calc.less(ref, extra, calc.zero()), calc.zero(), extra)
    return choose(A, child.disabled, extra, calc.zero())


def initial_ideal(calc: Calc, ref: Vec, child: Child, untouchable_extra: Vec) -> Vec:
    """A.5.1: ``componentwiseMin(guaranteed, used) + untouchable`` for a queue over its
    guarantee, else ``used``."""
    A = calc.A
    over = calc.greater(ref, child.used, child.guaranteed)
    return choose(A, over, add(cmin(A, child.guaranteed, child.used), untouchable_extra), child.used)


def _choose_state(A: Arith, cond: Cond, a: State, b: State) -> State:
    return State(
        tuple(choose(A, cond, x, y) for x, y in zip(a.ideal, b.ideal)),
        tuple(A.ite(cond, x, y) for x, y in zip(a.asking, b.asking)),
        choose(A, cond, a.unassigned, b.unassigned),
        A.ite(cond, a.equal_pass, b.equal_pass),
        A.ite(cond, a.done, b.done),
        a.heap if a.heap == b.heap or cond is True else b.heap,
    )
