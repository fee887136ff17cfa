"""The explorer: a bounded model checker for any :class:`yarnspec.spec.transition_system.TransitionSystem`.

* :func:`explore` (``bfs``): breadth-first exhaustive search with bounds, symmetry, invariants,
  deadlock, shortest counterexamples and statistics; progress properties under weak fairness
  as lassos (``liveness``).
* :func:`simulate` (``simulate``): seeded random walks.
* :class:`Trace`, :func:`replay` (``trace``): the JSON trace format and step-by-step replay;
  :func:`emit_test` (``emit``): pytest files that replay a trace and guard its fix.
* ``toy``: the allocate/release toy model; ``table``: models given as explicit tables.
"""

from .bfs import explore
from .result import ExploreResult, PropertyResult, Stats, Verdict
from .simulate import SimulationResult, simulate
from .emit import FixedVariant, emit_test
from .trace import ReplayError, Trace, replay

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
