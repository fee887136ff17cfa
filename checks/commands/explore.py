"""``yarnspec explore``: list the named scenarios, or explore (or simulate) one variant of one.

``yarnspec explore --list [SCENARIO]`` prints every scenario (story, source, default bounds,
where it comes from) and its variants with the property checked and the expected verdict;
``yarnspec explore SCENARIO --print-world`` prints the world file it was read from, to copy.

``yarnspec explore SCENARIO [--variant V] [--max-depth N] [--max-states N] [--exhaustive] [--no-symmetry]``
explores the variant (default: the scenario's first) within the scenario's default bounds or
the ones given, prints the explorer's report and judges the verdict against the expected one;
``--simulate [--seed S] [--walks W] [--steps N]`` runs seeded random walks instead.
``--json`` prints one JSON document (:meth:`ScenarioOutcome.to_json`); ``--trace-out FILE``
writes the counterexample as a replayable trace (``yarnspec replay FILE``); ``--emit-test
FILE`` writes a pytest file that replays it and checks the fixed variant
(:mod:`yarnspec.checks.explore.emit`); ``--full``, ``--html``, ``--dot`` and ``--itf`` print
and write pictures of it (:mod:`yarnspec.checks.render`, docs/traces.md).

Exit status (docs/exploring.md, "Outcomes"): 0 when the verdict agrees with the expected one
(or is an outcome given with ``--accept``); otherwise 1 when it is violated (or holds where a
violation was expected), 3 when it is not refuted (a depth, state or time limit, or the random
walks of a simulation, cut the search), 4 when it is vacuous; 2 for bad arguments (one line
naming the argument, via :class:`InputError`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from yarnspec.checks.commands import explore_scale
from yarnspec.checks.commands.accept_option import accepted_outcomes, add_accept_argument
from yarnspec.checks.commands.number_options import whole_number_argument
from yarnspec.checks.explore import ExploreResult, FixedVariant, Trace, emit_test
from yarnspec.checks.explore.result import VIOLATED
from yarnspec.checks.render import files as render_files
from yarnspec.checks.special_files import refuse_special
from yarnspec.checks.suites.scenarios import ScenarioOutcome, explore_variant, simulate_variant
from yarnspec.checks.worlds.plugins import MODEL_FACTORY as PLUGIN_MODEL_FACTORY
from yarnspec.checks.worlds.plugins import find_any_scenario, plugin_scenarios
from yarnspec.checks.worlds.world_arguments import MODEL_FACTORY as WORLD_MODEL_FACTORY
from yarnspec.checks.worlds.world_arguments import embedded_title, is_world_title, load_world, portable_trace
from yarnspec.impl.errors import InputError
from yarnspec.spec.scheduler.model import SchedulerModel
from yarnspec.spec.worlds.catalogue import SCENARIOS, ExploreBounds, Scenario, ScenarioVariant

SOURCE = "explore"
#: The factory an emitted test builds the model with (see :func:`yarnspec.checks.explore.emit_test`).
MODEL_FACTORY = "yarnspec.spec.worlds.catalogue:scenario_model"
DEFAULT_SEED, DEFAULT_WALKS, DEFAULT_STEPS = 0, 100, 100
DEFAULT_PROGRESS_EVERY = 10
#: The largest number any option takes (a seed, a bound, a count).
MAX_ARGUMENT = 2**63 - 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-command's arguments (numbers are read as text and checked in :func:`run`)."""
    parser.add_argument("scenario", nargs="?", metavar="SCENARIO", help="the scenario to explore (see --list)")
    parser.add_argument("--list", action="store_true", help="list the scenarios, their variants and expected verdicts")
    parser.add_argument(
        "--print-world", action="store_true", help="print the scenario's world file (TOML), to copy and edit"
    )
    parser.add_argument(
        "--world",
        metavar="FILE",
        help="explore a world file (TOML) instead of a named scenario; --variant picks its question",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="with --world: the world's warnings (implausible sizes) are errors (exit 2)",
    )
    parser.add_argument("--variant", metavar="V", help="the variant to run (default: the scenario's first)")
    parser.add_argument("--max-depth", metavar="N", help="explore at most N steps from the initial state")
    parser.add_argument("--max-states", metavar="N", help="store at most N distinct states")
    parser.add_argument(
        "--exhaustive",
        action="store_true",
        help="drop the scenario's default depth and state bounds: explore every reachable state",
    )
    parser.add_argument(
        "--no-symmetry",
        action="store_true",
        help="do not reduce by symmetry (safety runs use it by default where the scenario says so)",
    )
    parser.add_argument("--simulate", action="store_true", help="run seeded random walks instead of exploring")
    parser.add_argument("--seed", metavar="S", help=f"the simulation's seed (default {DEFAULT_SEED})")
    parser.add_argument("--walks", metavar="W", help=f"the simulation's walks (default {DEFAULT_WALKS})")
    parser.add_argument("--steps", metavar="N", help=f"steps per walk (default {DEFAULT_STEPS})")
    parser.add_argument(
        "--time-limit", metavar="SECONDS", help="stop exploring after this many seconds and report how far it got"
    )
    parser.add_argument(
        "--progress-every",
        metavar="SECONDS",
        help=f"when stderr is not a terminal, a progress line every SECONDS (default {DEFAULT_PROGRESS_EVERY})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--trace-out", metavar="FILE", help="write the counterexample as a replayable JSON trace")
    parser.add_argument(
        "--emit-test",
        metavar="FILE",
        help="write a pytest file that replays the counterexample and checks the fixed variant",
    )
    parser.add_argument(
        "--fixed-variant", metavar="V", help="the fixed variant --emit-test checks (default: see docs/traces.md)"
    )
    add_accept_argument(parser)
    render_files.add_arguments(parser)
    explore_scale.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """List or run; returns the exit status (an :class:`InputError` propagates to the CLI)."""
    if args.world and args.scenario:
        raise InputError(SOURCE, "SCENARIO", "give a scenario or --world FILE, not both")
    if args.print_world:
        _refuse(args, ("list",), "does not apply to --print-world")
        _refuse_with_list(args, "does not apply to --print-world")
        print(world_text(_chosen(args)), end="")
        return 0
    if args.list:
        _refuse_with_list(args)
        explore_scale.refuse(args, "does not apply to --list")
        if args.world:
            chosen = [load_world(args.world).scenario]
        else:
            plugins = plugin_scenarios()
            every = [*SCENARIOS.values(), *plugins.values()]
            chosen = [find_any_scenario(args.scenario, SOURCE, "SCENARIO", plugins)] if args.scenario else every
        if args.json:
            print(json.dumps({"scenarios": [s.to_json() for s in chosen]}, indent=2))
        else:
            print(format_list(chosen))
        return 0
    accepted = accepted_outcomes(args.accept, SOURCE)  # a usage error before the world is read
    scenario = _chosen(args)
    variant = scenario.variant(args.variant, SOURCE, "--variant")
    _check_output_paths(args)
    if args.simulate:
        _refuse(
            args,
            ("max_depth", "max_states", "exhaustive", "no_symmetry", "time_limit", "progress_every"),
            "does not apply to --simulate",
        )
        seed = _number(args.seed, "--seed", DEFAULT_SEED, 0)
        walks = _number(args.walks, "--walks", DEFAULT_WALKS, 1)
        steps = _number(args.steps, "--steps", DEFAULT_STEPS, 0)
        explore_scale.refuse(args, "does not apply to --simulate")
        outcome = simulate_variant(scenario, variant, seed, walks, steps, accepted)
    else:
        _refuse(args, ("seed", "walks", "steps"), "applies only with --simulate")
        time_limit = None if args.time_limit is None else _number(args.time_limit, "--time-limit", 0, 1)
        progress_every = _number(args.progress_every, "--progress-every", DEFAULT_PROGRESS_EVERY, 1)
        if explore_scale.wanted(args):
            outcome = explore_scale.explore(
                scenario, variant, _bounds(scenario, args), args, time_limit, progress_every, accepted
            )
        else:
            outcome = explore_variant(
                scenario, variant, _bounds(scenario, args), None, time_limit, progress_every, accepted
            )
    outcome = dataclasses.replace(outcome, trace=portable_trace(outcome.trace, scenario))
    _write_outputs(outcome, args)
    model = scenario.model(variant)
    trace = outcome.trace
    about = None if trace is None else (lambda: _about(trace, model, variant))
    for line in render_files.write_pictures(args, trace, model, SOURCE, about):
        print(f"explore: {line}", file=sys.stderr)
    loop = None
    if trace is not None and trace.loop_start is not None:  # imported only for a lasso (a safety run stays lean)
        from yarnspec.checks.explain.step_explanation import lasso_reason

        loop = lasso_reason(model, trace, SOURCE)
    if args.json:
        print(json.dumps(outcome.to_json() | ({"loop_reason": loop} if loop else {}), indent=1))
    else:
        print(format_outcome(outcome, args.full, loop))
    return outcome.exit_status()


def _about(trace: Trace, model: SchedulerModel, variant: ScenarioVariant) -> dict[str, str]:
    """The trace viewer's head in plain words (:mod:`.trace_about`, imported when a viewer is written)."""
    from yarnspec.checks.explain.trace_about import about_trace

    return about_trace(trace, model, SOURCE, variant).to_json()


def _chosen(args: argparse.Namespace) -> Scenario:
    """The scenario named on the command line, or the one of ``--world``."""
    if not args.scenario and not args.world:
        raise InputError(
            SOURCE, "SCENARIO", f"name a scenario to explore (or give --list); known: {', '.join(SCENARIOS)}"
        )
    if args.strict and not args.world:
        raise InputError(SOURCE, "--strict", "applies only with --world FILE")
    return (
        load_world(args.world, warn=True, strict=args.strict).scenario
        if args.world
        else find_any_scenario(args.scenario, SOURCE, "SCENARIO")
    )


def world_text(scenario: Scenario) -> str:
    """The text of the world file ``scenario`` was read from (``--print-world``); an
    :class:`InputError` for a scenario written in Python."""
    if scenario.world_file is None:
        raise InputError(
            SOURCE,
            "--print-world",
            f"scenario {scenario.name} is written in Python ({scenario.origin or 'no world file'})",
        )
    try:
        return Path(scenario.world_file).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(scenario.world_file, "", f"cannot read: {exc.strerror or exc}") from None


def _refuse_with_list(args: argparse.Namespace, fault: str = "does not apply to --list") -> None:
    _refuse(
        args,
        (
            "variant",
            "max_depth",
            "max_states",
            "exhaustive",
            "no_symmetry",
            "simulate",
            "seed",
            "walks",
            "steps",
            "trace_out",
            "emit_test",
            "fixed_variant",
            "full",
            "html",
            "dot",
            "dot_limit",
            "itf",
            "time_limit",
            "progress_every",
            "accept",
        ),
        fault,
    )


def _refuse(args: argparse.Namespace, names: tuple[str, ...], fault: str) -> None:
    for name in names:
        value = getattr(args, name)
        if value not in (None, False):
            raise InputError(SOURCE, "--" + name.replace("_", "-"), fault)


def _number(text: str | None, option: str, default: int, lowest: int) -> int:
    """The whole number given for ``option`` (``default`` when not given), at least ``lowest``."""
    if text is None:
        return default
    return whole_number_argument(text, SOURCE, option, lowest, MAX_ARGUMENT)


def _bounds(scenario: Scenario, args: argparse.Namespace) -> ExploreBounds:
    """The scenario's default bounds with the options given on the command line."""
    default = scenario.bounds
    if args.exhaustive:
        _refuse(args, ("max_depth", "max_states"), "does not apply to --exhaustive")
        default = ExploreBounds(None, None, default.symmetry)
    depth = default.max_depth if args.max_depth is None else _number(args.max_depth, "--max-depth", 0, 0)
    states = default.max_states if args.max_states is None else _number(args.max_states, "--max-states", 0, 1)
    return ExploreBounds(depth, states, default.symmetry and not args.no_symmetry)


def _check_output_paths(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output named empty or naming a FIFO, a device or a folder
    (:func:`~yarnspec.checks.special_files.refuse_special`)."""
    for option, path in (("--trace-out", args.trace_out), ("--emit-test", args.emit_test)):
        refuse_special(path, option)
    render_files.check_paths(args)


def _write_outputs(outcome: ScenarioOutcome, args: argparse.Namespace) -> None:
    """Write the trace and the regression test when asked; say on stderr what was written."""
    wanted = [
        (option, path)
        for option, path in (("--trace-out", args.trace_out), ("--emit-test", args.emit_test))
        if path is not None
    ]
    if not wanted:
        return
    trace = outcome.trace
    if trace is None:
        print(
            f"explore: no counterexample, so nothing was written to {', '.join(p for _, p in wanted)}", file=sys.stderr
        )
        return
    for option, path in wanted:
        refuse_special(path, option)  # again: the path may have changed during the search
        try:
            if option == "--trace-out":
                trace.save(path)
            else:
                world = trace.parameters.get("world")
                factory = MODEL_FACTORY
                if isinstance(world, str) and is_world_title(world):
                    factory = WORLD_MODEL_FACTORY
                elif isinstance(world, str) and world.partition("/")[0] not in SCENARIOS:
                    factory = PLUGIN_MODEL_FACTORY
                fixed = fixed_variant(outcome.scenario, outcome.variant, args.fixed_variant)
                if fixed is not None and trace.world is not None:
                    title = str(fixed.parameters["world"])
                    fixed = dataclasses.replace(
                        fixed, parameters={"world": embedded_title(trace.world, outcome.scenario, title)}
                    )
                emit_test(trace, path, factory, fixed)
                if fixed is None:
                    print(
                        f"explore: no variant of {outcome.scenario.name} is expected to hold {outcome.property}: "
                        "the test only replays the counterexample",
                        file=sys.stderr,
                    )
        except OSError as exc:
            raise InputError(path, option, f"cannot write: {exc.strerror}") from None
        what = "trace" if option == "--trace-out" else "regression test"
        print(f"explore: {what} written to {path}", file=sys.stderr)


def format_list(scenarios: list[Scenario]) -> str:
    """The scenarios and their variants as text."""
    lines: list[str] = []
    for scenario in scenarios:
        bounds = scenario.bounds
        shown = [
            f"max depth {bounds.max_depth}" if bounds.max_depth is not None else "",
            f"max states {bounds.max_states:,}" if bounds.max_states is not None else "",
            "symmetry" if bounds.symmetry else "",
        ]
        lines.append(f"{scenario.name}  ({scenario.source})")
        lines.append(f"  {scenario.story}")
        lines.append(f"  default bounds: {', '.join(s for s in shown if s) or 'none (exhaustive)'}")
        if scenario.origin:
            lines.append(f"  from: {scenario.origin}")
        width = max(len(v.name) for v in scenario.variants)
        prop_width = max(len(v.property) for v in scenario.variants)
        for v in scenario.variants:
            lines.append(f"  {v.name:<{width}}  {v.property:<{prop_width}}  expected {v.expected:<11}  {v.evidence}")
        lines.append("")
    return "\n".join(lines).rstrip()


def fixed_variant(scenario: Scenario, buggy: ScenarioVariant, chosen: str | None) -> FixedVariant | None:
    """The variant an emitted test checks the property under: ``chosen`` (``--fixed-variant``),
    else the variant that adds a fix to the buggy one's name (``yarn-8127+yarn-10259`` for
    ``yarn-8127``), else the first variant expected to keep the same property (``holds``,
    ``not-refuted`` or ``vacuous``: no violation); ``None`` when no variant is expected to keep it. It is explored within the scenario's fast bounds."""
    if chosen is not None:
        variant = scenario.variant(chosen, SOURCE, "--fixed-variant")
        if variant.property != buggy.property:
            raise InputError(
                SOURCE,
                "--fixed-variant",
                f"{chosen} checks {variant.property}, the counterexample is of {buggy.property}",
            )
    else:
        holding = [
            v for v in scenario.variants if v.property == buggy.property and v.expected != VIOLATED and v is not buggy
        ]
        extending = [v for v in holding if v.name.startswith(buggy.name + "+")]
        if not (extending or holding):
            return None
        variant = (extending or holding)[0]
    model = scenario.model(variant)
    bounds = scenario.fast
    return FixedVariant(
        {"world": scenario.title(variant)},
        model.variant,
        bounds.max_depth,
        bounds.max_states,
        bounds.symmetry,
        f"variant {variant.name}: {variant.evidence}",
    )


def format_outcome(outcome: ScenarioOutcome, full: bool = False, loop: str | None = None) -> str:
    """The run as text: the scenario, the engine's report (or the simulation's figures and
    trace), for a lasso why its ``loop`` never makes progress, and the judgement."""
    scenario, variant = outcome.scenario, outcome.variant
    lines = [
        f"scenario {scenario.name}, variant {variant.name} ({scenario.source})",
        f"  {scenario.story}",
        f"  property {outcome.property}, expected {outcome.expected}",
    ]
    lines += [f"  note: {note}" for note in outcome.notes if not isinstance(outcome.result, ExploreResult)]
    lines.append(_report(outcome, full))
    if loop:
        lines.append(f"why the loop never makes progress: {loop}")
    lines.append(outcome.judgement())
    return "\n".join(lines)


def _report(outcome: ScenarioOutcome, full: bool) -> str:
    result = outcome.result
    if isinstance(result, ExploreResult):
        return result.report(full)
    lines = [
        f"{result.model} ({result.variant}) {json.dumps(dict(result.parameters))}: {result.verdict.text}",
        f"  {result.steps:,} steps, {result.distinct_states:,} distinct states, {result.seconds:.2f} s",
    ]
    if result.violation is not None:
        lines.append(result.violation.format(full))
    return "\n".join(lines)
