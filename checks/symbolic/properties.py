"""The properties of one level, in words and as goals (docs/proofs.md lists them with bounds).

Each property quantifies over every input of its domain (:mod:`.domain`). Where a property as
first stated (in the project's design note, ``docs/sources.md``) is false for the real code, the stated version is kept
as a *finding*: it ends in a counterexample that the reference replays, and the corrected
property next to it is the one proved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from yarnspec.checks.symbolic.arith import Cond, Term, Vec, add, cmax, fits, sub, total
from yarnspec.checks.symbolic.fixpoint import Fixpoint, State
from yarnspec.checks.symbolic.level_proof import LevelProperty, LevelView, Parts

# --- shared pieces -------------------------------------------------------------------------


def took_part(fp: Fixpoint, state: State) -> list[Cond]:
    """Per child: its pass has started (weighted children always; zero-guarantee children
    once the equal pass has)."""
    A = fp.A
    return [A.any((w, state.equal_pass)) for w in fp.weighted]


def capacity(fp: Fixpoint, q: int) -> Term:
    """Default: the most child ``q``'s ideal can reach through offers: its maximum, its use
    plus what it still needs, and (a leaf in normal mode) the larger of use and guarantee."""
    A = fp.A
    child = fp.level.children[q]
    need = child.pending if fp.mode.reserved else child.pending_net_reserved
    most = A.min(child.maximum[0], child.used[0] + need[0])
    if not fp.mode.balance:
        most = A.min(most, A.max(child.used[0], child.guaranteed[0]))
    return most


def share(fp: Fixpoint, q: int) -> tuple[Term, Term]:
    """Child ``q``'s share of its pass, ``(numerator, denominator)``: its guarantee over the
    weighted children's guarantees, or 1 over the number of zero-guarantee children."""
    A = fp.A
    children = fp.level.children
    weighted_total = sum((A.ite(w, c.guaranteed[0], A.num(0)) for w, c in zip(fp.weighted, children)), A.num(0))
    equal_count = A.count(A.neg(w) for w in fp.weighted)
    return A.ite(fp.weighted[q], children[q].guaranteed[0], A.num(1)), A.ite(
        fp.weighted[q], weighted_total, equal_count
    )


def no_contention(v: LevelView) -> Cond:
    """Every child's demand fits its maximum, all demands together fit the parent, and no
    resource is reserved (so offers and the asking test read the same pending)."""
    A = v.A
    level = v.level
    demands = [add(c.used, c.pending) for c in level.children]
    fits_each = A.all(fits(A, d, c.maximum) for d, c in zip(demands, level.children))
    no_reserved = A.all(x == 0 for c in level.children for x in c.reserved)
    return A.all((fits_each, fits(A, total(A, demands, v.calc.dims), level.resource), no_reserved))


def _at_least_initial(fp: Fixpoint, state: State) -> Parts:
    A = fp.A
    return [
        (f"at least the initial ideal once started ({q})", A.implies(t, fits(A, fp.initial[q], state.ideal[q])))
        for q, t in enumerate(took_part(fp, state))
    ]


def _rounded_out(fp: Fixpoint, state: State) -> Parts:
    """Default: a queue that took part, no longer asks and is below its capacity was offered
    a share rounding to 0 of what is now unassigned or more."""
    A = fp.A
    un = state.unassigned[0]
    parts: Parts = []
    for q, took in enumerate(took_part(fp, state)):
        num, den = share(fp, q)
        idle = A.all((took, A.neg(state.asking[q]), state.ideal[q][0] < capacity(fp, q), un > 0))
        parts.append(
            (f"a queue out of the loop below its capacity was offered 0 ({q})", A.implies(idle, un * num * 2 <= den))
        )
    return parts


# --- the sum of the ideals -----------------------------------------------------------------


def _sum_ideal(v: LevelView) -> Vec:
    return total(v.A, v.state.ideal, v.calc.dims)


def _excess_untouchable(fp: Fixpoint, state: State) -> Parts:
    A = fp.A
    excess = sub(total(A, state.ideal, fp.calc.dims), fp.level.resource)
    return [("the excess over the parent is untouchable", fits(A, excess, total(A, fp.untouchable, fp.calc.dims)))]


SUM_STATED = LevelProperty(
    "sum-within-parent",
    "The children's ideal assignments add up to at most the parent's resource.",
    lambda v: fits(v.A, _sum_ideal(v), v.level.resource),
    _excess_untouchable,
    finding="False as stated: a queue that may not be preempted starts at its whole use (its over-use "
    "is untouchable), so the starting ideals alone can exceed the parent, and the zero-guarantee pass "
    "starts its members even when that overshoots what is left. Proved instead: "
    "sum-within-parent-plus-untouchable.",
)

SUM = LevelProperty(
    "sum-within-parent-plus-untouchable",
    "The children's ideal assignments add up to at most the parent's resource plus the children's "
    "untouchable extra (over-use that may not be preempted), per resource type.",
    lambda v: fits(v.A, _sum_ideal(v), add(v.level.resource, total(v.A, v.fp.untouchable, v.calc.dims))),
    _excess_untouchable,
)


def _over_use(fp: Fixpoint) -> Vec:
    """Per type, what the children use beyond their guarantees: sum of max(0, used - g)."""
    A = fp.A
    return total(
        A,
        (tuple(A.max(u - g, A.num(0)) for u, g in zip(c.used, c.guaranteed)) for c in fp.level.children),
        fp.calc.dims,
    )


def _unassigned_floor(fp: Fixpoint, state: State) -> Parts:
    """What is unassigned is never below minus the over-use of the children whose pass has
    started."""
    A = fp.A
    started = [
        tuple(A.ite(t, A.max(u - g, A.num(0)), A.num(0)) for u, g in zip(c.used, c.guaranteed))
        for t, c in zip(took_part(fp, state), fp.level.children)
    ]
    over = total(A, started, fp.calc.dims)
    return [("unassigned >= -over-use of the started", fits(A, tuple(A.num(0) - x for x in over), state.unassigned))]


SUM_DRF = LevelProperty(
    "sum-within-parent-plus-over-use",
    "The children's ideal assignments add up to at most the parent's resource plus what the children "
    "already use beyond their guarantees, per resource type. (Under DRF a queue below its guarantee by "
    "dominant share starts at its use, which may pass its guarantee in one type.)",
    lambda v: fits(v.A, _sum_ideal(v), add(v.level.resource, _over_use(v.fp))),
    _unassigned_floor,
)


# --- the maximum ---------------------------------------------------------------------------


def _ceilings(v: LevelView, with_used: bool) -> list[Vec]:
    A = v.A
    found = []
    for c, start in zip(v.level.children, v.fp.initial):
        top = cmax(A, c.maximum, start)
        found.append(cmax(A, top, c.used) if with_used else top)
    return found


def _maximum_parts(with_used: bool) -> object:
    def parts(fp: Fixpoint, state: State) -> Parts:
        A = fp.A
        found: Parts = []
        for q, (i, c, start) in enumerate(zip(state.ideal, fp.level.children, fp.initial)):
            top = cmax(A, c.maximum, start)
            top = cmax(A, top, c.used) if with_used else top
            found.append((f"within its ceiling ({q})", fits(A, i, top)))
        return found

    return parts


MAX_STATED = LevelProperty(
    "ideal-within-maximum",
    "No queue's ideal assignment is above its maximum.",
    lambda v: v.A.all(fits(v.A, i, c.maximum) for i, c in zip(v.state.ideal, v.level.children)),
    _maximum_parts(False),  # type: ignore[arg-type]
    finding="False as stated: a queue already using more than its maximum starts at that use. "
    "Proved instead: ideal-within-maximum-or-initial (Default) and ideal-within-maximum-initial-or-used (DRF).",
)

MAX = LevelProperty(
    "ideal-within-maximum-or-initial",
    "No queue's ideal assignment is above the larger of its maximum and its initial ideal: offers "
    "never take a queue past its maximum (every resource type).",
    lambda v: v.A.all(fits(v.A, i, top) for i, top in zip(v.state.ideal, _ceilings(v, False))),
    _maximum_parts(False),  # type: ignore[arg-type]
)

MAX_DRF = LevelProperty(
    "ideal-within-maximum-initial-or-used",
    "No queue's ideal assignment is above the larger of its maximum, its initial ideal and its use, "
    "per resource type. (Under DRF the leaf cap max(used, guaranteed) - ideal is applied as a whole "
    "resource, which can replace an offer capped at the maximum by one that passes it in one type, "
    "up to the queue's use.)",
    lambda v: v.A.all(fits(v.A, i, top) for i, top in zip(v.state.ideal, _ceilings(v, True))),
    _maximum_parts(True),  # type: ignore[arg-type]
)


# --- the floor -----------------------------------------------------------------------------


def _floor(v: LevelView, guarantee_needed: bool, disabled_too: bool = True) -> Cond:
    A = v.A
    parts = []
    for i, c, w in zip(v.state.ideal, v.level.children, v.fp.weighted):
        lower = tuple(A.min(u, g) for u, g in zip(c.used, c.guaranteed))
        parts.append(A.implies(A.neg(c.disabled), fits(A, lower, i)))
        if disabled_too:
            disabled = A.all((c.disabled, w)) if guarantee_needed else c.disabled
            parts.append(A.implies(disabled, fits(A, c.used, i)))
    return A.all(parts)


FLOOR_STATED = LevelProperty(
    "ideal-floor",
    "A preemptable queue's ideal is at least min(used, guaranteed); a non-preemptable queue's is at least its use.",
    lambda v: _floor(v, False),
    _at_least_initial,
    finding="False as stated: a non-preemptable queue without guarantee is left at 0 when nothing is "
    "left for the zero-guarantee pass (harmless: a non-preemptable queue is never asked for anything). "
    "Proved instead: ideal-floor-with-guarantee.",
)

FLOOR = LevelProperty(
    "ideal-floor-with-guarantee",
    "A preemptable queue's ideal is at least min(used, guaranteed); a non-preemptable queue with a "
    "guarantee gets at least its use.",
    lambda v: _floor(v, True),
    _at_least_initial,
)


def _starts_fit(v: LevelView) -> Cond:
    """The children's initial ideals add up to at most the parent, per type."""
    return fits(v.A, total(v.A, v.fp.initial, v.calc.dims), v.level.resource)


FLOOR_PREEMPTABLE_DRF = LevelProperty(
    "ideal-floor-preemptable",
    "A preemptable queue's ideal is at least min(used, guaranteed), per resource type.",
    lambda v: _floor(v, True, disabled_too=False),
    _at_least_initial,
    finding="False under DRF: the children's initial ideals can overshoot the parent in one type (a "
    "queue below its guarantee by dominant share starts at its use); the first queue served then gives "
    "that type back, below min(used, guaranteed). Proved instead: ideal-floor-with-guarantee-when-starts-fit.",
)


def _weighted_floor(v: LevelView) -> Cond:
    A = v.A
    parts = []
    for i, c, w in zip(v.state.ideal, v.level.children, v.fp.weighted):
        lower = tuple(A.min(u, g) for u, g in zip(c.used, c.guaranteed))
        parts.append(A.implies(A.all((w, A.neg(c.disabled))), fits(A, lower, i)))
    return A.implies(_starts_fit(v), A.all(parts))


def _weighted_floor_parts(fp: Fixpoint, state: State) -> Parts:
    A = fp.A
    fit = _starts_fit(LevelView(fp, state))
    weighted_pass = A.neg(state.equal_pass)
    parts: Parts = [
        (
            "the first pass never goes negative when the starts fit",
            A.implies(A.all((fit, weighted_pass)), A.all(x >= 0 for x in state.unassigned)),
        )
    ]
    for q, w in enumerate(fp.weighted):
        parts.append(
            (
                f"a weighted queue keeps its start when the starts fit ({q})",
                A.implies(A.all((fit, w)), fits(A, fp.initial[q], state.ideal[q])),
            )
        )
    return parts


FLOOR_DRF = LevelProperty(
    "ideal-floor-with-guarantee-when-starts-fit",
    "When the children's initial ideals fit within the parent (per type), a preemptable queue with a "
    "guarantee ends with an ideal of at least min(used, guaranteed), per resource type. (Under DRF the "
    "initial ideals can overshoot the parent in one type, and the first queue served then gives that "
    "type back; a non-preemptable queue's untouchable extra is the plain difference used - guaranteed, "
    "negative where it uses less than its guarantee; see the findings.)",
    _weighted_floor,
    _weighted_floor_parts,
)


# --- work conservation ---------------------------------------------------------------------


def _demand_covers_supply(v: LevelView) -> Cond:
    A = v.A
    demand = total(A, (add(c.used, c.pending) for c in v.level.children), v.calc.dims)
    return A.implies(fits(A, v.level.resource, demand), A.all(x <= 0 for x in v.state.unassigned))


def _left_only_by_rounding(v: LevelView) -> Cond:
    A, fp, state = v.A, v.fp, v.state
    un = state.unassigned[0]
    parts = []
    for q in range(fp.size):
        num, den = share(fp, q)
        parts.append(A.implies(A.all((un > 0, state.ideal[q][0] < capacity(fp, q))), un * num * 2 <= den))
    return A.all(parts)


WORK_STATED = LevelProperty(
    "work-conserving",
    "When the children's total demand (used + pending) is at least the parent's resource, everything is assigned.",
    _demand_covers_supply,
    lambda fp, s: [*_at_least_initial(fp, s), *_rounded_out(fp, s)],
    finding="False as stated: a leaf's ideal never exceeds max(used, guaranteed) (the leaf cap), maxima "
    "and reserved resource limit queues, and a queue whose rounded offer is 0 drops out. Proved "
    "instead: work-conserving-up-to-rounding.",
)

WORK = LevelProperty(
    "work-conserving-up-to-rounding",
    "If anything is left unassigned, every queue that could still take more (below its maximum, its "
    "demand and, for a leaf, max(used, guaranteed)) was offered a share of it that rounds to 0: "
    "2 x unassigned x share <= 1, share = guarantee / sum of the pass's guarantees (or 1 / number of "
    "zero-guarantee queues). Default calculator.",
    _left_only_by_rounding,
    lambda fp, s: [*_at_least_initial(fp, s), *_rounded_out(fp, s)],
)


# --- preemption without contention (YARN-11073) ------------------------------------------


def _nothing_to_preempt(v: LevelView) -> Cond:
    A = v.A
    return A.implies(no_contention(v), A.all(x <= 0 for t in v.targets for x in t))


def _rounding_residue_only(v: LevelView) -> Cond:
    A, fp = v.A, v.fp
    parts = []
    for q, target in enumerate(v.targets):
        num, den = share(fp, q)
        parts.append(target[0] * num * 2 <= den)
    return A.implies(no_contention(v), A.all(parts))


def _within_demand(fp: Fixpoint, state: State) -> Parts:
    A = fp.A
    view = LevelView(fp, state)
    return [
        (f"within demand without contention ({q})", A.implies(no_contention(view), fits(A, i, add(c.used, c.pending))))
        for q, (i, c) in enumerate(zip(state.ideal, fp.level.children))
    ]


def _satisfied_without_contention(fp: Fixpoint, state: State) -> Parts:
    """DRF: without contention a queue that took part and left the loop is satisfied (ideal
    at least its use), and one that never asked started at its use."""
    A = fp.A
    view = LevelView(fp, state)
    parts: Parts = []
    for q, (took, child) in enumerate(zip(took_part(fp, state), fp.level.children)):
        out = A.all((took, A.neg(state.asking[q])))
        parts.append(
            (
                f"out of the loop means satisfied ({q})",
                A.implies(A.all((no_contention(view), out)), fits(A, child.used, state.ideal[q])),
            )
        )
    return parts


NO_CONTENTION_STATED = LevelProperty(
    "no-preemption-without-contention",
    "When every queue's demand (used + pending) fits its maximum and all demands together fit the "
    "parent (an idle cluster), no queue is asked to give anything back.",
    _nothing_to_preempt,
    lambda fp, s: [*_at_least_initial(fp, s), *_rounded_out(fp, s), *_within_demand(fp, s)],
    targets=True,
    finding="False as stated for the Default calculator: a queue whose rounded offer is 0 drops out "
    "below its use and is preempted although everything fits. Proved instead: "
    "no-preemption-without-contention-beyond-rounding.",
)

NO_CONTENTION = LevelProperty(
    "no-preemption-without-contention-beyond-rounding",
    "Without contention (every demand fits its maximum, all fit the parent, nothing reserved) a queue's "
    "target is only what rounding withheld: 2 x target x share <= 1. Default calculator.",
    _rounding_residue_only,
    lambda fp, s: [*_at_least_initial(fp, s), *_rounded_out(fp, s), *_within_demand(fp, s)],
    targets=True,
)

NO_CONTENTION_DRF = LevelProperty(
    "no-preemption-without-contention",
    NO_CONTENTION_STATED.statement + " DRF calculator.",
    _nothing_to_preempt,
    lambda fp, s: [*_within_demand(fp, s), *_satisfied_without_contention(fp, s)],
    targets=True,
)


def lone_queue(v: LevelView) -> Cond:
    """At most one child uses or asks for anything, its demand fits its maximum and the
    parent, and nothing is reserved: the cluster is otherwise idle."""
    A = v.A
    active = [A.any(x > 0 for x in (*c.used, *c.pending)) for c in v.level.children]
    at_most_one = A.all(
        A.neg(A.all((active[p], active[q]))) for p in range(len(active)) for q in range(p + 1, len(active))
    )
    return A.all((at_most_one, no_contention(v)))


def _lone_not_preempted(v: LevelView) -> Cond:
    A = v.A
    return A.implies(lone_queue(v), A.all(x <= 0 for t in v.targets for x in t))


def _lone_parts(fp: Fixpoint, state: State) -> Parts:
    """Alone on an idle cluster nothing unassigned is negative, no ideal falls below its
    start, and a queue that took part and left the loop holds its use."""
    A = fp.A
    alone = lone_queue(LevelView(fp, state))
    parts: Parts = [
        ("alone, nothing unassigned is negative", A.implies(alone, A.all(x >= 0 for x in state.unassigned)))
    ]
    for q, (took, child) in enumerate(zip(took_part(fp, state), fp.level.children)):
        parts.append(
            (
                f"alone, at least the start ({q})",
                A.implies(A.all((alone, took)), fits(A, fp.initial[q], state.ideal[q])),
            )
        )
        out = A.all((took, A.neg(state.asking[q])))
        parts.append(
            (
                f"alone and out of the loop means satisfied ({q})",
                A.implies(A.all((alone, out)), fits(A, child.used, state.ideal[q])),
            )
        )
    return parts


LONE = LevelProperty(
    "lone-queue-not-preempted",
    "On an otherwise idle cluster (at most one queue uses or asks for anything, its demand fits its "
    "maximum and the parent, nothing reserved) that queue is not asked to give anything back. This "
    "is the property YARN-11073 breaks.",
    _lone_not_preempted,
    _lone_parts,
    targets=True,
)


# --- the amounts ---------------------------------------------------------------------------


def _keeps_ideal(v: LevelView) -> Cond:
    A = v.A
    parts = []
    for i, c, o in zip(v.state.ideal, v.level.children, v.obtain):
        floor = tuple(A.min(u, x) for u, x in zip(c.used, i))
        parts.append(fits(A, floor, sub(c.used, o)))
    return A.all(parts)


def _within_budget(v: LevelView) -> Cond:
    A = v.A
    return fits(A, total(A, v.targets, v.calc.dims), v.level.budget)


KEEPS_IDEAL = LevelProperty(
    "amount-keeps-ideal",
    "The amount to obtain from a queue (after dead zone, natural termination and per-round scaling) "
    "never takes it below its ideal assignment: used - to_obtain >= min(used, ideal), per resource "
    "type, for every ideal whatsoever.",
    _keeps_ideal,
    targets=True,
    any_ideal=True,
    backend="bv",
)

WITHIN_BUDGET = LevelProperty(
    "targets-within-budget",
    "The targets of a level add up to at most the round's remaining budget, per resource type, for "
    "every ideal whatsoever.",
    _within_budget,
    targets=True,
    any_ideal=True,
    backend="bv",
)


def _dominant_within_budget(v: LevelView) -> Cond:
    calc = v.calc
    return calc.A.neg(calc.greater(v.level.resource, total(v.A, v.targets, calc.dims), v.level.budget))


WITHIN_BUDGET_DRF = LevelProperty(
    "targets-within-budget-dominant",
    "The targets of a level add up to at most the round's remaining budget by dominant share (the "
    "DRF comparison), for every ideal whatsoever.",
    _dominant_within_budget,
    targets=True,
    any_ideal=True,
    backend="bv",
)


def _keeps_keep(v: LevelView) -> Cond:
    """DRF: ``used - to_obtain`` is not below ``min(used, ideal)`` by the calculator."""
    A, calc = v.A, v.calc
    ref = v.level.resource
    parts = []
    for i, c, o in zip(v.state.ideal, v.level.children, v.obtain):
        parts.append(A.neg(calc.less(ref, sub(c.used, o), calc.min(ref, c.used, i))))
    return A.all(parts)


KEEPS_IDEAL_DRF = LevelProperty(
    "amount-keeps-ideal-dominant",
    "The amount to obtain from a queue never takes it below its ideal assignment by dominant share: "
    "used - to_obtain is not less than min(used, ideal) in the DRF comparison, for every ideal "
    "whatsoever.",
    _keeps_keep,
    targets=True,
    any_ideal=True,
    backend="bv",
)


def catalogue(dominant: bool) -> tuple[LevelProperty, ...]:
    """The properties proved by default for a calculator."""
    if dominant:
        return (SUM_DRF, MAX_DRF, FLOOR_DRF, LONE)
    return (SUM, MAX, FLOOR, WORK, NO_CONTENTION, LONE, KEEPS_IDEAL, WITHIN_BUDGET)


#: Why the Default calculator's corrected properties, and the DRF statements, do not carry
#: over to DRF (each is kept as a DRF finding).
DRF_FINDINGS: dict[str, str] = {
    SUM.name: "False under DRF: a queue below its guarantee by dominant share starts at its use, which can "
    "pass its guarantee in one type, and that excess is not untouchable. Proved instead: "
    "sum-within-parent-plus-over-use.",
    MAX.name: "False under DRF (not found by the solver within K=2, S=3; a concrete search found inputs at "
    "K=3, S=6): the leaf cap is applied as a whole resource, so an offer capped at the maximum can be "
    "replaced by one that passes it in one type. Proved instead: ideal-within-maximum-initial-or-used.",
    FLOOR.name: "False under DRF: the initial ideals can overshoot the parent in one type and the first queue "
    "served gives that type back. Proved instead: ideal-floor-with-guarantee-when-starts-fit.",
    NO_CONTENTION_DRF.name: "Unsettled under DRF: the induction's invariant is too weak, and neither the "
    "solver (K=2, S=3, 8 steps) nor a concrete search (200,000 levels at K=3, S=6) found a counterexample; "
    "lone-queue-not-preempted, its special case, is proved.",
    KEEPS_IDEAL_DRF.name: "False under DRF: a target can be positive in one type and negative in another; "
    "natural termination rounds the negative part up to 0, so the queue is asked for the positive part "
    "alone and keeps less than min(used, ideal) by dominant share. Per type the amount never takes a "
    "queue below its ideal where the target is positive (see amount-keeps-ideal, Default).",
    WITHIN_BUDGET_DRF.name: "False under DRF for a budget whose types are out of proportion: the scale is "
    "one ratio of dominant shares, so a scaled target can pass the budget in a type where the budget is "
    "smaller than its dominant share suggests. (A round's first budget is the cluster times one fraction, "
    "in proportion; later selectors' remainders need not be.)",
}


def findings(dominant: bool) -> tuple[LevelProperty, ...]:
    """The properties as first stated that the real code does not have (and, under DRF, the
    Default calculator's corrected properties and one unsettled statement; see
    :data:`DRF_FINDINGS`)."""
    common = (SUM_STATED, MAX_STATED, FLOOR_STATED)
    if dominant:
        drf = (SUM, MAX, FLOOR, NO_CONTENTION_DRF, KEEPS_IDEAL_DRF, WITHIN_BUDGET_DRF)
        return (*common, *(replace(p, finding=DRF_FINDINGS[p.name]) for p in drf), FLOOR_PREEMPTABLE_DRF)
    return (*common, WORK_STATED, NO_CONTENTION_STATED)


def by_name(names: Sequence[str], dominant: bool) -> list[LevelProperty]:
    """The properties named (the calculator's catalogue for an empty list); ``KeyError`` for
    an unknown name."""
    known = {p.name: p for p in (*catalogue(dominant), *findings(dominant))}
    return [known[n] for n in names] if names else list(catalogue(dominant))
