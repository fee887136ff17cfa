"""The explorer: a bounded model checker for any :class:`yarnspec.spec.transition_system.TransitionSystem`.

* :func:`explore` (``bfs``): breadth-first exhaustive search with bounds, symmetry, invariants,
  deadlock, shortest counterexamples and statistics; progress properties under weak fairness
  as lassos (``liveness``).
* :func:`simulate` (``simulate``): seeded random walks.
* :class:`Trace`, :func:`replay`, :func:`emit_test` (``trace``): the JSON trace format,
  step-by-step replay and pytest files that replay a trace.
* ``toy``: the allocate/release toy model; ``table``: models given as explicit tables.
"""

from .bfs import explore
from .result import ExploreResult, PropertyResult, Stats, Verdict
from .simulate import SimulationResult, simulate
from .trace import ReplayError, Trace, emit_test, replay

__all__ = [
    "ExploreResult",
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
