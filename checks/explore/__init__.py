"""The explorer: a bounded model checker for any :class:`yarnspec.spec.transition_system.TransitionSystem`.

* :func:`explore` (``bfs``): breadth-first exhaustive search with bounds, symmetry, invariants,
  deadlock, shortest counterexamples and statistics; progress properties under weak fairness
  as lassos (``liveness``).
* :func:`simulate` (``simulate``): seeded random walks.
* :class:`Trace`, :func:`replay` (``trace``): the JSON trace format and step-by-step replay;
  :func:`emit_test` (``emit``): pytest files that replay a trace and guard its fix.
* ``toy``: the allocate/release toy model; ``table``: models given as explicit tables.
"""

from yarnspec.checks.explore.bfs import explore
from yarnspec.checks.explore.emit import FixedVariant, emit_test
from yarnspec.checks.explore.result import ExploreResult, PropertyResult, Stats, Verdict
from yarnspec.checks.explore.simulate import SimulationResult, simulate
from yarnspec.checks.explore.trace import ReplayError, Trace, replay

__all__ = [
    "ExploreResult",
    "FixedVariant",
    "PropertyResult",
    "ReplayError",
    "SimulationResult",
    "Stats",
    "Trace",
    "Verdict",
    "emit_test",
    "explore",
    "replay",
    "simulate",
]
