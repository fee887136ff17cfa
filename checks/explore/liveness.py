"""Progress properties under weak fairness: fair lassos in the explored graph.

``P ~> Q`` is violated exactly when some fair behaviour reaches a state where P holds and Q
does not, and from there never reaches Q. Such a behaviour can be taken lasso-shaped: a prefix
from an initial state, then a loop repeated for ever. The search (:func:`find_lasso`):

1. Keep the states that can follow a trigger: reachable from a state with P and not Q through
   states without Q. Only expanded states count (a state whose successors a bound cut off
   cannot be judged), so a lasso found in a bounded graph is still real.
2. Stuttering: a step that leaves the state unchanged (a self-loop) is not a step of its class,
   and a behaviour may stop in a state for ever when no weakly fair class is enabled there;
   so such a state (a deadlock in particular) is a lasso by itself.
3. A strongly connected component of two or more states (networkx) holds a fair loop when each
   fair class is either taken on an edge inside it or not enabled in one of its states; the
   enabledness counts every edge out of the state, also those leaving the component or into
   Q. A class enabled in all its states but taken on none of its edges disqualifies it.
4. The prefix is a shortest path over (state, triggered?) pairs: any step before the trigger,
   steps within not-Q after it, so the reported prefix is the shortest reachable one.
5. The loop is built from concrete states, not the whole component: from the entry, walk to
   the nearest witness of a fair class still unsatisfied (an edge taking it or a state where
   it is not enabled), repeat, then walk back to the entry.

Symmetry is not used here: the graph is the plain one (see ``bfs.SYMMETRY_OFF_FOR_LIVENESS``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.spec.property_guard import PropertyRaised
from yarnspec.spec.transition_system import Progress

#: Per state id: its (action, target id) steps, or None when the state was not expanded.
Steps = list[list[tuple[Any, int]] | None]


@dataclass
class StateGraph:
    """The explored graph: states by id, and for each expanded state its (action, target id)
    steps in the model's order (``None`` for a state that was stored but not expanded)."""

    states: list[Any]
    initial: list[int]
    steps: Steps

    def depth(self, node: int) -> int:
        """The fewest steps from an initial state to ``node`` (computed on demand, for messages)."""
        distance = dict.fromkeys(self.initial, 0)
        frontier = list(self.initial)
        while frontier and node not in distance:
            following = []
            for current in frontier:
                for _, target in self.steps[current] or ():
                    if target not in distance:
                        distance[target] = distance[current] + 1
                        following.append(target)
            frontier = following
        return distance.get(node, -1)

    @staticmethod
    def build(
        initial: Iterable[Hashable], expansions: Iterable[tuple[Hashable, Sequence[tuple[Any, Hashable]]]]
    ) -> StateGraph:
        """The graph of the initial states and the recorded ``(state, successors)`` expansions."""
        ids: dict[Hashable, int] = {}
        states: list[Any] = []

        def id_of(state: Hashable) -> int:
            found = ids.get(state)
            if found is None:
                found = ids[state] = len(states)
                states.append(state)
            return found

        initial_ids = list(dict.fromkeys(id_of(state) for state in initial))
        by_id: dict[int, list[tuple[Any, int]]] = {}
        for state, successors in expansions:
            by_id[id_of(state)] = [(action, id_of(target)) for action, target in successors]
        return StateGraph(states, initial_ids, [by_id.get(node) for node in range(len(states))])


@dataclass(frozen=True)
class Lasso:
    """A fair violating behaviour: ``states[0]`` is initial, ``actions[i]`` leads from
    ``states[i]`` to ``states[i + 1]``, and the last state returns to ``states[loop_start]``
    (or, when ``loop_start`` is the last index, stutters there for ever)."""

    states: list[Any]
    actions: list[Any]
    loop_start: int
    message: str


def _evaluated(graph: StateGraph, predicate: Callable[[Any], bool]) -> list[bool]:
    """``predicate`` on every state of the graph; a registered property that raises is placed
    at the depth of the state (:class:`PropertyRaised`)."""
    found = []
    for node, state in enumerate(graph.states):
        try:
            found.append(predicate(state))
        except PropertyRaised as exc:
            raise exc.at(f"a state at depth {graph.depth(node)}") from None
    return found


def find_lasso(graph: StateGraph, prop: Progress[Any], class_of: Callable[[Any], str]) -> Lasso | None:
    """A fair lasso violating ``prop`` with a shortest prefix, or ``None`` when there is none."""
    states, steps, fair = graph.states, graph.steps, prop.fair
    outside = [not holds for holds in _evaluated(graph, prop.goal)]
    triggered = _evaluated(graph, prop.triggered)
    triggers = [node for node in range(len(states)) if steps[node] is not None and triggered[node]]
    region = _reachable_within(triggers, steps, outside)
    if not region:
        return None
    classes = _edge_classes(steps, region, class_of, fair)
    enabled = {node: _enabled(node, classes) for node in region}
    stutter = {node for node in region if not enabled[node]}
    fair_component: dict[int, frozenset[int]] = {}
    for component in _components(region, steps):
        if len(component) > 1 and _is_fair(component, steps, classes, enabled, fair):
            for node in component:
                fair_component[node] = component
    found = _shortest_prefix(graph, region, set(triggers), stutter | set(fair_component))
    if found is None:
        return None
    path, trigger_at = found
    entry = path[-1][1]
    prefix_states = [states[node] for _, node in path]
    prefix_actions = [action for action, _ in path[1:]]
    start = len(prefix_states) - 1
    if entry in stutter:
        why = "no weakly fair class is enabled there" if fair else "no fairness is assumed"
        message = f"{_trigger_text(prop, trigger_at)}; the run stutters for ever at step {start} ({why})"
        return Lasso(prefix_states, prefix_actions, start, message)
    loop, witnesses = _fair_loop(entry, fair_component[entry], steps, classes, enabled, fair)
    loop_states = [states[node] for _, node in loop]
    message = (
        f"{_trigger_text(prop, trigger_at)}; steps {start}..{start + len(loop)} repeat for ever, "
        f"fair because {'; '.join(witnesses)}"
    )
    return Lasso(prefix_states + loop_states, prefix_actions + [action for action, _ in loop], start, message)


def _trigger_text(prop: Progress[Any], step: int) -> str:
    if prop.premise is None:
        return f"the goal never holds from step {step} on"
    return f"the premise holds at step {step} and the goal never holds from there on"


def _reachable_within(sources: Iterable[int], steps: Steps, outside: list[bool]) -> set[int]:
    """Expanded states reachable from ``sources`` through expanded states outside the goal."""
    region = {node for node in sources if outside[node] and steps[node] is not None}
    queue = deque(region)
    while queue:
        node = queue.popleft()
        for _, target in steps[node] or ():
            if target not in region and outside[target] and steps[target] is not None:
                region.add(target)
                queue.append(target)
    return region


def _edge_classes(
    steps: Steps, region: set[int], class_of: Callable[[Any], str], fair: frozenset[str]
) -> dict[int, list[str | None]]:
    """Per region state, per step: its class if weakly fair and not a self-loop, else None."""
    classes: dict[int, list[str | None]] = {}
    for node in region:
        row: list[str | None] = []
        for action, target in steps[node] or ():
            cls = class_of(action) if target != node else None
            row.append(cls if cls in fair else None)
        classes[node] = row
    return classes


def _enabled(node: int, classes: dict[int, list[str | None]]) -> frozenset[str]:
    """The weakly fair classes with a non-stuttering step out of ``node``."""
    return frozenset(cls for cls in classes[node] if cls is not None)


def _components(region: set[int], steps: Steps) -> Iterable[frozenset[int]]:
    """The strongly connected components of the region (self-loops left out)."""
    # networkx costs more to import than a safety run's whole start-up: only a progress check needs it
    import networkx as nx  # type: ignore[import-untyped]

    graph = nx.DiGraph()
    graph.add_nodes_from(region)
    graph.add_edges_from(
        (node, target) for node in region for _, target in steps[node] or () if target in region and target != node
    )
    return (frozenset(component) for component in nx.strongly_connected_components(graph))


def _inner_steps(node: int, component: frozenset[int], steps: Steps) -> Iterable[tuple[int, Any, int]]:
    """(position, action, target) of the steps of ``node`` that stay inside ``component``
    (self-loops excluded: they are stuttering)."""
    for place, (action, target) in enumerate(steps[node] or ()):
        if target in component and target != node:
            yield place, action, target


def _is_fair(
    component: frozenset[int],
    steps: Steps,
    classes: dict[int, list[str | None]],
    enabled: dict[int, frozenset[str]],
    fair: frozenset[str],
) -> bool:
    """Whether a loop through all of ``component`` is fair: every fair class is taken on an
    inner step or is not enabled in one of its states."""
    taken = {classes[node][place] for node in component for place, _, _ in _inner_steps(node, component, steps)}
    sometimes_off = {cls for node in component for cls in fair - enabled[node]}
    return fair <= taken | sometimes_off


def _shortest_prefix(
    graph: StateGraph, region: set[int], triggers: set[int], targets: set[int]
) -> tuple[list[tuple[Any, int]], int] | None:
    """A shortest path ``[(None, initial), (action, state), ...]`` to a target state entered
    after a trigger, and the index of the trigger on it.

    A 0-1 breadth-first search over (state, phase): phase 0 is before the trigger (any step),
    phase 1 after it (steps within the region only); moving from phase 0 to 1 at a trigger
    state costs nothing. States leave the deque in order of distance, so the first target
    taken out is a nearest one.
    """
    steps = graph.steps
    distance: dict[tuple[int, int], int] = {}
    came_from: dict[tuple[int, int], tuple[tuple[int, int], Any] | None] = {}
    queue: deque[tuple[int, tuple[int, int]]] = deque()

    def relax(pair: tuple[int, int], length: int, link: tuple[tuple[int, int], Any] | None, free: bool) -> None:
        if distance.get(pair, length + 1) > length:
            distance[pair], came_from[pair] = length, link
            (queue.appendleft if free else queue.append)((length, pair))

    for node in graph.initial:
        relax((node, 0), 0, None, True)
    while queue:
        length, here = queue.popleft()
        if length > distance[here]:
            continue  # a stale entry: the pair was reached more cheaply since
        node, phase = here
        if phase == 1 and node in targets:
            return _unwind(came_from, here)
        if phase == 0 and node in triggers:
            relax((node, 1), length, (here, None), True)
        for action, target in steps[node] or ():
            if phase == 0 or target in region:
                relax((target, phase), length + 1, (here, action), False)
    return None


def _unwind(
    came_from: dict[tuple[int, int], tuple[tuple[int, int], Any] | None], end: tuple[int, int]
) -> tuple[list[tuple[Any, int]], int]:
    """The path to ``end`` as (action, state) steps, dropping the phase switch, and the index
    of the state where the switch (the trigger) happened."""
    chain, actions = [end], []
    while (link := came_from[chain[-1]]) is not None:
        chain.append(link[0])
        actions.append(link[1])
    chain.reverse()
    actions.reverse()
    path: list[tuple[Any, int]] = [(None, chain[0][0])]
    trigger = 0
    for before, after, action in zip(chain, chain[1:], actions):
        if before[1] != after[1]:
            trigger = len(path) - 1  # the phase switch is not a step
        else:
            path.append((action, after[0]))
    return path, trigger


def _fair_loop(
    entry: int,
    component: frozenset[int],
    steps: Steps,
    classes: dict[int, list[str | None]],
    enabled: dict[int, frozenset[str]],
    fair: frozenset[str],
) -> tuple[list[tuple[Any, int]], list[str]]:
    """A loop from ``entry`` back to it inside ``component`` meeting a witness for every fair
    class, and the witnesses in words (loop steps counted from the entry)."""
    loop: list[tuple[Any, int]] = []
    witnesses: list[str] = []
    pending = set(fair)

    def settle(node: int) -> None:
        for cls in sorted(pending - enabled[node]):
            pending.discard(cls)
            witnesses.append(f"{cls} is not enabled at loop step {len(loop)}")

    def is_witness(node: int, place: int | None) -> bool:
        return bool(pending - enabled[node]) if place is None else classes[node][place] in pending

    settle(entry)
    current = entry
    while pending:
        for source, place, action, target in _walk(current, component, steps, is_witness):
            loop.append((action, target))
            cls = classes[source][place]
            if cls in pending:
                pending.discard(cls)
                witnesses.append(f"{cls} is taken at loop step {len(loop)}")
            settle(target)
            current = target
    if current != entry:
        back = _walk(current, component, steps, lambda node, place: place is None and node == entry)
        loop += [(action, target) for _, _, action, target in back]
    return loop, witnesses


def _walk(
    start: int,
    component: frozenset[int],
    steps: Steps,
    goal: Callable[[int, int | None], bool],
) -> list[tuple[int, int, Any, int]]:
    """The shortest non-empty walk inside ``component`` from ``start``, as (source, position,
    action, target) steps, that ends with a step ``goal(source, position)`` accepts or at a
    state ``goal(state, None)`` accepts."""
    came_from: dict[int, tuple[int, int, Any]] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for place, action, target in _inner_steps(node, component, steps):
            if goal(node, place) or goal(target, None):
                walk = [(node, place, action, target)]
                while walk[-1][0] != start:
                    back = walk[-1][0]
                    source, source_place, source_action = came_from[back]
                    walk.append((source, source_place, source_action, back))
                return walk[::-1]
            if target not in came_from and target != start:
                came_from[target] = (node, place, action)
                queue.append(target)
    raise AssertionError("a fair component always holds the witness sought")  # pragma: no cover
