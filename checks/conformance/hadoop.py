"""The Hadoop preemption family of conformance cases: notations ``qdata``, ``mockframework``
and ``unit`` (``../shared/conformance/README.md``, semantics parts B and C).

:func:`run_case` reads the whole case first (so a malformed case is reported as such whatever
the model does), builds the snapshot with the notation's parser, then replays the rounds: one
``edit_schedule`` call per round at the round's ``clock_ms``, the policy's state carried from
round to round, configuration changes applied between rounds. After each round it checks, in
order, the round's ``parser_asserts``, ``expect`` entries and ``state_asserts``; the first
difference raises :class:`ExpectationMismatch` at its JSON place. Entries with
``asserted: false`` and the ``derived`` sections only produce warnings.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Protocol

from yarnspec.checks.conformance import mockframework, qdata
from yarnspec.checks.conformance.case_fields import (
    as_bool,
    as_int,
    as_list,
    as_object,
    as_str,
    child,
    conf_place,
    disable_preemption_key,
    intra_queue_disable_key,
    nothing_to_check,
    ordering_policy_key,
    reject_unknown_keys,
    required,
)
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch, Unsupported
from yarnspec.checks.conformance.parser_asserts import check_parser_asserts, validate_parser_asserts
from yarnspec.impl.calculator import CALCULATOR_CLASSES, ResourceCalculator, calculator
from yarnspec.impl.cluster import Application, ClusterSnapshot, Container, ContainerId
from yarnspec.impl.config.keys import RESOURCE_CALCULATOR
from yarnspec.impl.errors import InputError, NotModelled
from yarnspec.impl.preemption.config import KNOWN_KEYS, PreemptionConfig
from yarnspec.impl.preemption.ordering import victim_order_of_apps, victim_order_of_containers
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.preemption.result import EventType, PolicyState, PreemptionEvent, QueueTarget, RoundResult
from yarnspec.impl.resources import ZERO

NOTATIONS = ("qdata", "mockframework", "unit")
ANY = "any"

#: ``state_asserts[].field`` (Hadoop's TempQueuePerPartition names) -> ``QueueTarget`` attribute.
STATE_FIELDS: Mapping[str, str] = {
    "idealAssigned": "ideal",
    "preemptableExtra": "preemptable",
    "untouchableExtra": "untouchable",
    "toBePreempted": "to_be_preempted",
    "actuallyToBePreempted": "to_obtain",
    "guaranteed": "guaranteed",
    "used": "used",
}

_TOP_KEYS = ("id", "source", "notation", "resource_calculator", "conf", "conf_from_harness", "input", "rounds")
_ROUND_KEYS = (
    "clock_ms",
    "rebuild",
    "update_queues_config",
    "phase",
    "conf_change",
    "expect",
    "counts_are_cumulative",
    "state_asserts",
    "parser_asserts",
    "sorted_order",
    "other_asserts",
)
_EXPECT_KEYS = ("app", "app_id", "event", "count", "never", "container_queue", "container_node", "asserted")
_STATE_KEYS = ("queue", "partition", "field", "memory", "vcores")
_UNIT_INPUT_KEYS = ("what", "containers", "apps", "insertion_order")
#: How long a prose excerpt may be in an UNSUPPORTED reason.
_EXCERPT = 90


class ParsedCluster(Protocol):
    """What both notation parsers return: the snapshot and how the case names a container's
    queue (the ``container_queue`` of an expectation is compared with that string)."""

    @property
    def snapshot(self) -> ClusterSnapshot: ...

    def queue_string(self, container: Container) -> str: ...


# --- the case, read and validated before anything runs -----------------------------------


@dataclass(frozen=True)
class EventExpectation:
    """One ``expect[]`` entry: how many events of a kind for an application (``None`` = any)."""

    place: str
    app: int | None
    app_written: str
    declared_app_id: int | None
    event: EventType | None
    count: int
    never: bool
    container_queue: str | None
    container_node: str | None
    asserted: bool
    cumulative: bool

    def matches(self, event: PreemptionEvent, queue_string: str) -> bool:
        """Whether ``event`` is one this entry counts."""
        container = event.container
        return (
            (self.app is None or container.app_id == self.app)
            and (self.event is None or event.kind is self.event)
            and (self.container_queue is None or queue_string == self.container_queue)
            and (self.container_node is None or container.node == self.container_node)
        )

    @property
    def app_label(self) -> str:
        """The application in words: ``application 4 (appF)``, ``application 3``, ``any application``."""
        if self.app is None:
            return "any application"
        written = "" if self.app_written == str(self.app) else f" ({self.app_written})"
        return f"application {self.app}{written}"

    @property
    def description(self) -> str:
        """What is counted, in words, for a mismatch message."""
        kind = self.event.value if self.event else "events of any type"
        scope = "so far" if self.cumulative else "in this round"
        text = f"{kind} for {self.app_label} {scope}"
        if self.container_queue is not None:
            text += f", containers of queue {self.container_queue!r}"
        if self.container_node is not None:
            text += f" on node {self.container_node}"
        return text + (" (never: true)" if self.never else "")


@dataclass(frozen=True)
class StateAssertion:
    """One ``state_asserts[]`` entry: a queue's internal figure after the round."""

    place: str
    queue: str
    partition: str
    field_name: str
    memory: int
    vcores: int | None

    def expected(self) -> dict[str, int]:
        """The asserted components."""
        return {"memory": self.memory} | ({} if self.vcores is None else {"vcores": self.vcores})


@dataclass(frozen=True)
class RoundSpec:
    """One ``rounds[]`` entry, validated."""

    place: str
    clock_ms: int | None
    conf_change: Mapping[str, Any]
    rebuild: Mapping[str, Any]
    update_queues_config: str | None
    expectations: tuple[EventExpectation, ...]
    state_asserts: tuple[StateAssertion, ...]
    parser_asserts: Mapping[str, Any] | None
    sorted_order: tuple[str, ...] | None
    prose: str | None

    @property
    def asserts_something(self) -> bool:
        """Whether upstream asserts anything here that the runner can check."""
        return bool(
            any(e.asserted for e in self.expectations)
            or self.state_asserts
            or self.parser_asserts
            or self.sorted_order is not None
        )

    @property
    def runs_policy(self) -> bool:
        """A round that only checks the parse (the harness self-tests) runs no policy."""
        return not (self.parser_asserts and not self.expectations and not self.state_asserts)


@dataclass
class _Report:
    """Warnings collected while a case runs, and the rounds that assert only prose."""

    warnings: list[str] = field(default_factory=list)
    prose_only: list[tuple[str, str]] = field(default_factory=list)

    def finish(self, rounds: Sequence[RoundSpec]) -> list[str]:
        """Raise :class:`Unsupported` if some round's only assertion is prose; else the
        warnings. Prose beside structured assertions is noted as a warning."""
        if self.prose_only:
            places = ", ".join(place for place, _ in self.prose_only)
            excerpt = self.prose_only[0][1]
            excerpt = excerpt if len(excerpt) <= _EXCERPT else excerpt[: _EXCERPT - 3] + "..."
            raise Unsupported(
                f"{places}: upstream asserts only prose here (other_asserts: {excerpt!r}), which the runner cannot check"
            )
        if not any(spec.asserts_something for spec in rounds):
            raise nothing_to_check(
                "no round has an asserted expectation, state assertion, parser assertion or sorted order"
            )
        for spec in rounds:
            if spec.prose is not None:
                self.warnings.append(
                    f"{spec.place}.other_asserts: prose, not checked (the round's structured assertions were)"
                )
        return self.warnings


def run_case(case: Mapping[str, Any]) -> list[str]:
    """Replay one Hadoop case; the warnings of a passing case, or raise (module docstring)."""
    case = as_object(case, "(top level)")
    reject_unknown_keys(case, _TOP_KEYS, "")
    notation = as_str(required(case, "notation", ""), "notation")
    if notation not in NOTATIONS:
        raise Unsupported(f"notation {notation!r} is not one of {', '.join(NOTATIONS)}")
    calc = _calculator(case)
    conf = as_object(case.get("conf", {}), "conf")
    if "conf_from_harness" in case:
        for i, key in enumerate(as_list(case["conf_from_harness"], "conf_from_harness")):
            as_str(key, child("conf_from_harness", i))
    rounds = _read_rounds(case, notation)
    if notation == "unit":
        return _run_unit(case, rounds)
    return _Replay(notation, required(case, "input", ""), conf, calc, rounds).run()


def _calculator(case: Mapping[str, Any]) -> ResourceCalculator:
    """``resource_calculator`` (``default`` or ``dominant``), which must agree with the
    ``resource-calculator`` class in ``conf`` when that is given too."""
    name = as_str(required(case, "resource_calculator", ""), "resource_calculator")
    if name not in ("default", "dominant"):
        raise CaseFormatError("resource_calculator", f"unknown calculator {name!r}: expected 'default' or 'dominant'")
    conf = case.get("conf")
    if isinstance(conf, dict) and RESOURCE_CALCULATOR in conf:
        where = conf_place(RESOURCE_CALCULATOR)
        declared = CALCULATOR_CLASSES.get(as_str(conf[RESOURCE_CALCULATOR], where).strip())
        if declared is None:
            raise CaseFormatError(
                where,
                f"unknown calculator class {conf[RESOURCE_CALCULATOR]!r} (known: {', '.join(CALCULATOR_CLASSES)})",
            )
        if declared != name:
            raise CaseFormatError(where, f"names the {declared} calculator, but resource_calculator says {name!r}")
    return calculator("dominant" if name == "dominant" else "default")


def _read_rounds(case: Mapping[str, Any], notation: str) -> tuple[RoundSpec, ...]:
    rounds = as_list(required(case, "rounds", ""), "rounds")
    if not rounds:
        raise CaseFormatError("rounds", "expected at least one round")
    return tuple(_read_round(raw, child("rounds", i), notation) for i, raw in enumerate(rounds))


def _read_round(raw: Any, place: str, notation: str) -> RoundSpec:
    spec = as_object(raw, place)
    reject_unknown_keys(spec, _ROUND_KEYS, place)
    clock = as_int(spec["clock_ms"], child(place, "clock_ms"), minimum=0) if "clock_ms" in spec else None
    cumulative = as_bool(spec.get("counts_are_cumulative", True), child(place, "counts_are_cumulative"))
    expect_place = child(place, "expect")
    expectations = tuple(
        _read_expectation(entry, child(expect_place, i), notation, cumulative)
        for i, entry in enumerate(as_list(spec.get("expect", []), expect_place))
    )
    state_place = child(place, "state_asserts")
    state = tuple(
        _read_state_assertion(entry, child(state_place, i))
        for i, entry in enumerate(as_list(spec.get("state_asserts", []), state_place))
    )
    conf_change = as_object(spec.get("conf_change", {}), child(place, "conf_change"))
    rebuild = as_object(spec.get("rebuild", {}), child(place, "rebuild"))
    new_queues = (
        as_str(spec["update_queues_config"], child(place, "update_queues_config"))
        if "update_queues_config" in spec
        else None
    )
    if (rebuild or new_queues is not None) and notation != "mockframework":
        raise CaseFormatError(place, "rebuild and update_queues_config belong to mockframework cases")
    parser = (
        validate_parser_asserts(spec["parser_asserts"], child(place, "parser_asserts"))
        if "parser_asserts" in spec
        else None
    )
    order = None
    if "sorted_order" in spec:
        order_place = child(place, "sorted_order")
        order = tuple(
            as_str(v, child(order_place, i)) for i, v in enumerate(as_list(spec["sorted_order"], order_place))
        )
    prose = as_str(spec["other_asserts"], child(place, "other_asserts")) if "other_asserts" in spec else None
    if "phase" in spec:
        as_str(spec["phase"], child(place, "phase"))
    if notation == "unit" and (expectations or state or conf_change or parser is not None):
        raise CaseFormatError(
            place, "a unit case runs no policy round: it can only have sorted_order and other_asserts"
        )
    if notation != "unit" and order is not None:
        raise CaseFormatError(child(place, "sorted_order"), "sorted_order belongs to unit cases")
    return RoundSpec(place, clock, conf_change, rebuild, new_queues, expectations, state, parser, order, prose)


def _read_expectation(raw: Any, place: str, notation: str, cumulative: bool) -> EventExpectation:
    entry = as_object(raw, place)
    reject_unknown_keys(entry, _EXPECT_KEYS, place)
    raw_app = required(entry, "app", place)
    app = _read_app(raw_app, child(place, "app"), notation)
    event_name = as_str(required(entry, "event", place), child(place, "event"))
    event: EventType | None = None
    if event_name != ANY:
        if event_name not in EventType.__members__:
            known = ", ".join([*EventType.__members__, ANY])
            raise Unsupported(
                f"{child(place, 'event')}: event {event_name!r} is not one the model sends (known: {known})"
            )
        event = EventType[event_name]
    if ("count" in entry) == ("never" in entry):
        raise CaseFormatError(place, "expected exactly one of 'count' and 'never'")
    never = "never" in entry
    if never and not as_bool(entry["never"], child(place, "never")):
        raise CaseFormatError(child(place, "never"), "only 'never: true' is meaningful; use 'count' otherwise")
    count = 0 if never else as_int(entry["count"], child(place, "count"), minimum=0)
    queue = as_str(entry["container_queue"], child(place, "container_queue")) if "container_queue" in entry else None
    node = as_str(entry["container_node"], child(place, "container_node")) if "container_node" in entry else None
    asserted = as_bool(entry.get("asserted", True), child(place, "asserted"))
    declared = as_int(entry["app_id"], child(place, "app_id"), minimum=0) if "app_id" in entry else None
    return EventExpectation(place, app, str(raw_app), declared, event, count, never, queue, node, asserted, cumulative)


def _read_app(raw: Any, place: str, notation: str) -> int | None:
    """``any`` (``None``), an application id, or (qdata) a test constant such as ``appC``."""
    if raw == ANY:
        return None
    if isinstance(raw, str) and notation == "qdata":
        return qdata.app_id_of_constant(raw, place)
    if isinstance(raw, str):
        raise CaseFormatError(place, f"expected an application number or 'any', found {raw!r}")
    return as_int(raw, place, minimum=0)


def _read_state_assertion(raw: Any, place: str) -> StateAssertion:
    entry = as_object(raw, place)
    reject_unknown_keys(entry, _STATE_KEYS, place)
    name = as_str(required(entry, "field", place), child(place, "field"))
    if name not in STATE_FIELDS:
        raise Unsupported(
            f"{child(place, 'field')}: internal value {name!r} is not checked by this runner (it checks: {', '.join(STATE_FIELDS)})"
        )
    vcores = as_int(entry["vcores"], child(place, "vcores")) if "vcores" in entry else None
    return StateAssertion(
        place,
        as_str(required(entry, "queue", place), child(place, "queue")),
        as_str(entry.get("partition", ""), child(place, "partition")),
        name,
        as_int(required(entry, "memory", place), child(place, "memory")),
        vcores,
    )


# --- replaying the rounds -------------------------------------------------------------------


class _Replay:
    """One qdata or mockframework case in progress."""

    def __init__(
        self,
        notation: str,
        raw_input: Any,
        conf: Mapping[str, Any],
        calc: ResourceCalculator,
        rounds: Sequence[RoundSpec],
    ) -> None:
        self.notation = notation
        self.raw_input = raw_input
        self.conf: dict[str, Any] = dict(conf)
        self.calc = calc
        self.rounds = rounds
        self.report = _Report()
        self.history: list[tuple[tuple[PreemptionEvent, str], ...]] = []
        self.known_apps: set[int] = set()
        self.cluster = self._parse(check_derived=True)
        self.config = self._config({})

    def _parse(self, check_derived: bool = False, place: str = "input") -> ParsedCluster:
        """The input under the configuration in force; the first time, a qdata case's
        ``derived`` section is compared with the parse (warnings)."""
        parsed = self._parse_input(check_derived, place)
        self.known_apps.update(parsed.snapshot.apps)
        return parsed

    def _parse_input(self, check_derived: bool, place: str) -> ParsedCluster:
        if self.notation == "qdata":
            parsed = qdata.parse_qdata(self.raw_input, self.conf, self.calc)
            derived = self.raw_input.get("derived") if isinstance(self.raw_input, dict) else None
            if check_derived and derived is not None:
                self.report.warnings.extend(qdata.derived_mismatches(parsed, derived))
            return parsed
        return mockframework.parse_mockframework(self.raw_input, self.conf, place, calc=self.calc)

    def _config(self, changed_at: Mapping[str, str]) -> PreemptionConfig:
        """The policy settings of the configuration in force; a bad value is a format error at
        the place it was written (``conf`` or the round's ``conf_change``)."""
        try:
            return PreemptionConfig.from_properties(self.conf, source="conf")
        except InputError as exc:
            raise CaseFormatError(changed_at.get(exc.place, conf_place(exc.place)), exc.fault) from None

    def run(self) -> list[str]:
        """Replay every round and check it; the case's warnings (see the module docstring)."""
        state: PolicyState | None = None
        clock = 0
        for spec in self.rounds:
            if spec.conf_change:
                self.conf.update(spec.conf_change)
                changed_at = {key: conf_place(key, child(spec.place, "conf_change")) for key in spec.conf_change}
                self.config = self._config(changed_at)
                self.cluster = self._parse()  # disable_preemption flags may have changed
            if spec.rebuild:
                # buildEnv again: a new input and a new policy (its marks start afresh)
                self.raw_input = {**as_object(self.raw_input, "input"), **spec.rebuild}
                self.cluster = self._parse(place=child(spec.place, "rebuild"))
                state = None
            if spec.update_queues_config is not None:
                # updateQueueConfig: a new queue tree whose leaves hold no application yet
                changed = {"queuesConfig": spec.update_queues_config, "appsConfig": ""}
                self.raw_input = {**as_object(self.raw_input, "input"), **changed}
                self.cluster = self._parse(place=child(spec.place, "update_queues_config"))
            clock = spec.clock_ms if spec.clock_ms is not None else clock
            if spec.parser_asserts:
                check_parser_asserts(
                    spec.parser_asserts, self.cluster.snapshot, self.calc, child(spec.place, "parser_asserts")
                )
            result: RoundResult | None = None
            if spec.runs_policy:
                result = self._edit_schedule(spec.place, clock, state)
                state = result.state
            events = result.events if result else ()
            self.history.append(tuple((e, self.cluster.queue_string(e.container)) for e in events))
            for expectation in spec.expectations:
                self._check_events(expectation)
            for assertion in spec.state_asserts:
                self._check_state(assertion, result)
            if spec.prose is not None and not spec.asserts_something:
                self.report.prose_only.append((spec.place, spec.prose))
        self._note_unread_conf()
        return self.report.finish(self.rounds)

    def _edit_schedule(self, place: str, clock: int, state: PolicyState | None) -> RoundResult:
        try:
            return edit_schedule(self.cluster.snapshot, self.config, self.calc, clock, state)
        except NotModelled as exc:
            raise Unsupported(f"{place}: the model does not cover this case: {exc}") from None
        except (InputError, CaseFormatError, Unsupported, ExpectationMismatch):
            raise
        except Exception as exc:  # a crash of the model is this case's failure, not the run's
            raise ExpectationMismatch(
                place, "a completed editSchedule round", _crash(exc), "the policy raised"
            ) from exc

    def _check_events(self, expectation: EventExpectation) -> None:
        declared = expectation.declared_app_id
        if declared is not None and declared != expectation.app:
            self.report.warnings.append(
                f"{child(expectation.place, 'app_id')}: the case says {declared}, but {expectation.app_written} is application {expectation.app} (counted as {expectation.app})"
            )
        if expectation.app is not None and expectation.app not in self.known_apps:
            self.report.warnings.append(
                f"{expectation.place}: {expectation.app_label} is not in the input, so its count is 0"
            )
        events: Iterable[tuple[PreemptionEvent, str]] = (
            chain.from_iterable(self.history) if expectation.cumulative else self.history[-1]
        )
        actual = sum(1 for e, queue in events if expectation.matches(e, queue))
        if actual == expectation.count:
            return
        mismatch = ExpectationMismatch(expectation.place, expectation.count, actual, expectation.description)
        if not expectation.asserted:
            self.report.warnings.append(f"asserted: false, so not decisive: {mismatch}")
            return
        raise mismatch

    def _check_state(self, assertion: StateAssertion, result: RoundResult | None) -> None:
        snapshot = self.cluster.snapshot
        queue = _resolve_queue(snapshot, assertion.queue, child(assertion.place, "queue"))
        if assertion.partition not in snapshot.partitions:
            raise CaseFormatError(
                child(assertion.place, "partition"), f"no partition {assertion.partition!r} in the input"
            )
        what = f"{assertion.field_name} of {queue} in partition {assertion.partition!r}"
        target = _last_target(result, queue, assertion.partition)
        if target is None:
            raise ExpectationMismatch(assertion.place, assertion.expected(), "no figure computed for this queue", what)
        value = getattr(target, STATE_FIELDS[assertion.field_name])
        actual = {"memory": value.memory} | ({} if assertion.vcores is None else {"vcores": value.vcores})
        if actual != assertion.expected():
            raise ExpectationMismatch(assertion.place, assertion.expected(), actual, what)

    def _note_unread_conf(self) -> None:
        """A configuration key that neither the policy settings nor the parsers read is a
        warning: the case may depend on something the model ignores."""
        queues = self.cluster.snapshot.queues
        read = set(KNOWN_KEYS) | {RESOURCE_CALCULATOR} | {disable_preemption_key(path) for path in queues}
        read |= {intra_queue_disable_key(path) for path in queues} | {
            ordering_policy_key(q.name) for q in queues.values()
        }
        for key in self.conf:
            if key not in read:
                self.report.warnings.append(f"{conf_place(key)}: not read by the model")


def _resolve_queue(snapshot: ClusterSnapshot, name: str, place: str) -> str:
    """A queue path, or a short name that names exactly one queue."""
    if name in snapshot.queues:
        return name
    matches = [path for path, q in snapshot.queues.items() if q.name == name]
    if len(matches) != 1:
        fault = "is ambiguous" if matches else "is not in the input"
        raise CaseFormatError(place, f"queue {name!r} {fault}")
    return matches[0]


def _last_target(result: RoundResult | None, queue: str, partition: str) -> QueueTarget | None:
    """The figure as upstream reads it after the round: every selector recomputes the shared
    per-queue records, so the last selector that computed this queue's figures wins."""
    if result is None:
        return None
    for selector in reversed(result.selectors):
        target = selector.targets.get((queue, partition))
        if target is not None:
            return target
    return None


def _crash(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


# --- unit: sort orders ------------------------------------------------------------------------


def _run_unit(case: Mapping[str, Any], rounds: Sequence[RoundSpec]) -> list[str]:
    """A sort-order check: the named containers (or applications) are fed to the victim
    ordering in ``insertion_order`` and the names must come out as ``sorted_order``."""
    data = as_object(required(case, "input", ""), "input")
    reject_unknown_keys(data, _UNIT_INPUT_KEYS, "input")
    if ("containers" in data) == ("apps" in data):
        raise CaseFormatError("input", "expected exactly one of 'containers' and 'apps'")
    sort = _container_sort(data) if "containers" in data else _app_sort(data)
    report = _Report()
    for spec in rounds:
        if spec.sorted_order is None:
            if spec.prose is not None:
                report.prose_only.append((spec.place, spec.prose))
            continue
        order = _insertion_order(data, sort.names)
        unknown = [name for name in spec.sorted_order if name not in sort.names]
        if unknown:
            raise CaseFormatError(child(spec.place, "sorted_order"), f"names not in the input: {', '.join(unknown)}")
        actual = sort.order(order)
        if actual != list(spec.sorted_order):
            raise ExpectationMismatch(
                child(spec.place, "sorted_order"), list(spec.sorted_order), actual, "victim order"
            )
    return report.finish(rounds)


@dataclass(frozen=True)
class _NamedSort:
    """Named items and the victim ordering that applies to them, by name."""

    names: list[str]
    key_of_name: Mapping[str, Any]
    sort: Callable[[list[str]], list[Any]]

    def order(self, names: list[str]) -> list[str]:
        """The names in the order the victim ordering puts their items, fed in ``names`` order."""
        name_of_key = {key: name for name, key in self.key_of_name.items()}
        return [name_of_key[key] for key in self.sort(names)]


def _unit_entries(
    data: Mapping[str, Any], key: str, fields: Sequence[str], identity: str
) -> list[tuple[str, dict[str, int]]]:
    """``[(name, {field: integer})]`` of the ``input.<key>`` list; names are unique, and every
    entry has its ``identity`` field."""
    place = child("input", key)
    entries: list[tuple[str, dict[str, int]]] = []
    for i, raw in enumerate(as_list(data[key], place)):
        where = child(place, i)
        entry = as_object(raw, where)
        reject_unknown_keys(entry, ("name", *fields), where)
        name = as_str(required(entry, "name", where), child(where, "name"))
        if any(name == seen for seen, _ in entries):
            raise CaseFormatError(child(where, "name"), f"name {name!r} is used twice")
        required(entry, identity, where)
        entries.append((name, {f: as_int(entry[f], child(where, f)) for f in fields if f in entry}))
    return entries


def _container_sort(data: Mapping[str, Any]) -> _NamedSort:
    """Live containers of one application (``app_id`` 0 unless given)."""
    containers: dict[str, Container] = {}
    for name, values in _unit_entries(data, "containers", ("container_id", "priority", "app_id"), "container_id"):
        container_id = ContainerId(values.get("app_id", 0), values["container_id"])
        if any(c.container_id == container_id for c in containers.values()):
            raise CaseFormatError(f"input.containers (entry {name!r})", f"container id {container_id} is used twice")
        containers[name] = Container(
            container_id, queue="root", node="", resource=ZERO, priority=values.get("priority", 1)
        )

    def sort(names: list[str]) -> list[Any]:
        return [c.container_id for c in victim_order_of_containers([containers[n] for n in names])]

    return _NamedSort(list(containers), {n: c.container_id for n, c in containers.items()}, sort)


def _app_sort(data: Mapping[str, Any]) -> _NamedSort:
    """Applications of one leaf queue."""
    apps: dict[str, Application] = {}
    for name, values in _unit_entries(data, "apps", ("app_id", "priority"), "app_id"):
        if any(a.app_id == values["app_id"] for a in apps.values()):
            raise CaseFormatError(f"input.apps (entry {name!r})", f"application id {values['app_id']} is used twice")
        apps[name] = Application(values["app_id"], "root", values.get("priority", 0))

    def sort(names: list[str]) -> list[Any]:
        return [a.app_id for a in victim_order_of_apps([apps[n] for n in names])]

    return _NamedSort(list(apps), {n: a.app_id for n, a in apps.items()}, sort)


def _insertion_order(data: Mapping[str, Any], names: list[str]) -> list[str]:
    """``input.insertion_order``: a permutation of the names (default: as listed)."""
    if "insertion_order" not in data:
        return names
    place = child("input", "insertion_order")
    order = [as_str(v, child(place, i)) for i, v in enumerate(as_list(data["insertion_order"], place))]
    if sorted(order) != sorted(names):
        raise CaseFormatError(
            place, f"must list every name exactly once ({', '.join(names)}), found {', '.join(order)}"
        )
    return order
