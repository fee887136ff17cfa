"""The options of ``yarnspec explore`` for long and large runs (docs/exploring-at-scale.md).

``--workers N`` and ``--ray [ADDRESS]`` run the partitioned search
(:mod:`yarnspec.checks.explore.parallel`) in N local processes or on Ray; ``--coverage``
counts actions per kind; ``--fingerprint`` stores 64-bit fingerprints instead of states;
``--checkpoint FILE [--checkpoint-every SECONDS]`` and ``--resume FILE`` save and continue a
run. Any of them selects the partitioned search, which checks invariants and deadlock: a
variant whose property is a progress property is refused with one line, since the fair-cycle
search needs the whole state graph in one process.
"""

from __future__ import annotations

import argparse
import os

from yarnspec.checks.commands.number_options import whole_number_argument
from yarnspec.checks.explore.model_source import ModelSource
from yarnspec.checks.explore.ray_backend import LOCAL, ray_cluster
from yarnspec.checks.suites.scenarios import ScenarioOutcome, judge_explored
from yarnspec.checks.worlds.plugins import MODEL_FACTORY as PLUGIN_MODEL_FACTORY
from yarnspec.checks.worlds.world_arguments import MODEL_FACTORY as WORLD_MODEL_FACTORY
from yarnspec.checks.worlds.world_arguments import TITLE_PREFIX
from yarnspec.impl.errors import InputError
from yarnspec.spec.outcome import Outcome
from yarnspec.spec.worlds.catalogue import INVARIANTS, ExploreBounds, Scenario, ScenarioVariant

SOURCE = "explore"
SCENARIO_FACTORY = "yarnspec.spec.worlds.catalogue:scenario_model"
#: The options that select the partitioned search.
OPTIONS = ("workers", "ray", "coverage", "fingerprint", "checkpoint", "checkpoint_every", "resume")
MAX_WORKERS = 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options (see the module docstring)."""
    parser.add_argument(
        "--workers", metavar="N", help="explore in N parallel processes (Ray actors with --ray); invariants only"
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const=LOCAL,
        metavar="ADDRESS",
        help="run the partitions on Ray: a local instance, or ADDRESS (auto, ray://host:10001)",
    )
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="count how often each action kind fired and in how many states it was enabled",
    )
    parser.add_argument(
        "--fingerprint",
        action="store_true",
        help="store 64-bit fingerprints of states instead of states (prints the collision probability)",
    )
    parser.add_argument(
        "--checkpoint", metavar="FILE", help="write the search to FILE at the end of a level (and when it stops short)"
    )
    parser.add_argument(
        "--checkpoint-every",
        metavar="SECONDS",
        help="with --checkpoint: at most every SECONDS (default: only when the run stops short)",
    )
    parser.add_argument("--resume", metavar="FILE", help="continue the search saved in a checkpoint FILE")


def wanted(args: argparse.Namespace) -> bool:
    """Whether any option of this module was given."""
    return any(getattr(args, name) not in (None, False) for name in OPTIONS)


def refuse(args: argparse.Namespace, fault: str) -> None:
    """An :class:`InputError` for the first option of this module given, when one is."""
    for name in OPTIONS:
        if getattr(args, name) not in (None, False):
            raise InputError(SOURCE, "--" + name.replace("_", "-"), fault)


def model_source(scenario: Scenario, variant: ScenarioVariant, world_file: str | None) -> ModelSource:
    """How a worker builds the variant's model: from the scenario's title, or the world file."""
    if world_file is not None:
        path = os.path.abspath(world_file)
        return ModelSource(WORLD_MODEL_FACTORY, {"world": f"{TITLE_PREFIX}{path}/{variant.name}"}, (path,))
    factory = SCENARIO_FACTORY if scenario.name in _builtin() else PLUGIN_MODEL_FACTORY
    return ModelSource(factory, {"world": scenario.title(variant)})


def _builtin() -> tuple[str, ...]:
    from yarnspec.spec.worlds.catalogue import SCENARIOS

    return tuple(SCENARIOS)


def explore(
    scenario: Scenario,
    variant: ScenarioVariant,
    bounds: ExploreBounds,
    args: argparse.Namespace,
    time_limit: int | None,
    progress_every: int,
    accepted: frozenset[Outcome] = frozenset(),
) -> ScenarioOutcome:
    """Explore the variant with the partitioned search and judge its verdict."""
    from yarnspec.checks.explore.parallel import explore_partitioned, local_processes  # only these options need it

    if variant.property != INVARIANTS:
        given = next(name for name in OPTIONS if getattr(args, name) not in (None, False))
        raise InputError(
            SOURCE, "--" + given.replace("_", "-"),
            f"variant {variant.name} checks the progress property {variant.property}, which needs the whole state graph "
            "in one process; the parallel search (and coverage, fingerprints, checkpoints) checks invariants only: "
            "run without these options",
        )  # fmt: skip
    if args.checkpoint_every is not None and args.checkpoint is None:
        raise InputError(SOURCE, "--checkpoint-every", "applies only with --checkpoint FILE")
    workers = 1 if args.workers is None else whole_number_argument(args.workers, SOURCE, "--workers", 1, MAX_WORKERS)
    every = (
        None
        if args.checkpoint_every is None
        else whole_number_argument(args.checkpoint_every, SOURCE, "--checkpoint-every", 1, 10**9)
    )
    backend = local_processes
    if args.ray is not None:
        backend = ray_cluster(args.ray)
        if args.workers is None:
            workers = max(2, os.cpu_count() or 1)
    result = explore_partitioned(
        model_source(scenario, variant, args.world),
        workers=workers,
        backend=backend,
        max_depth=bounds.max_depth,
        max_states=bounds.max_states,
        symmetry=bounds.symmetry,
        fingerprints=args.fingerprint,
        coverage=args.coverage,
        time_limit=time_limit,
        progress_every=progress_every,
        checkpoint=args.checkpoint,
        checkpoint_every=every,
        resume=args.resume,
    )
    return judge_explored(scenario, variant, bounds, result, accepted)
