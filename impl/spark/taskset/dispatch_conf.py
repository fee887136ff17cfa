"""What a task set manager and the offer loop read from Spark's configuration: the
``spark.locality.wait*`` waits (semantics 5.3), ``spark.speculation*``, ``spark.task.*``, the
shuffle service, and Spark's time strings (``conf.getTimeAsMs``).

:class:`DispatchConf` gathers them, reading Spark keys with :meth:`DispatchConf.from_spark_conf`
on top of a release's :class:`~yarnspec.impl.spark.taskset.dispatch_variant.DispatchVariant`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.locality import TaskLocality
from yarnspec.impl.spark.taskset.dispatch_variant import DispatchVariant

LOCALITY_WAIT = "spark.locality.wait"
LOCALITY_WAIT_PROCESS = "spark.locality.wait.process"
LOCALITY_WAIT_NODE = "spark.locality.wait.node"
LOCALITY_WAIT_RACK = "spark.locality.wait.rack"
LEGACY_RESET = "spark.locality.wait.legacyResetOnTaskLaunch"
TASK_CPUS = "spark.task.cpus"
MAX_FAILURES = "spark.task.maxFailures"
SPECULATION = "spark.speculation"
SPECULATION_MULTIPLIER = "spark.speculation.multiplier"
SPECULATION_QUANTILE = "spark.speculation.quantile"
SPECULATION_MIN_RUNTIME = "spark.speculation.minTaskRuntime"
SHUFFLE_SERVICE = "spark.shuffle.service.enabled"

#: ``spark.locality.wait`` when unset; the per-level keys fall back to it.
DEFAULT_LOCALITY_WAIT = "3s"

_CONF_SOURCE = "<spark conf>"

#: Spark's time-string suffixes (``JavaUtils.timeSuffixes``) as microseconds per unit.
_MICROS_PER_UNIT = MappingProxyType(
    {
        "us": 1,
        "ms": 1_000,
        "s": 1_000_000,
        "m": 60_000_000,
        "min": 60_000_000,
        "h": 3_600_000_000,
        "d": 86_400_000_000,
    }
)
_TIME_STRING = re.compile(r"(-?[0-9]+)([a-z]+)?")


def parse_time_ms(text: object, key: str = "", source: str = _CONF_SOURCE) -> int:
    """A Spark time string in milliseconds, as ``conf.getTimeAsMs`` reads it.

    Lower-cased and trimmed, then ``<integer><suffix?>`` with the suffixes ``us ms s m min h
    d``; no suffix means milliseconds. Microseconds truncate towards zero, as Java's
    ``TimeUnit.convert`` does. A JSON integer is read as milliseconds. Anything else is an
    :class:`InputError` naming the key.
    """
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise InputError(source, key, f"expected a time such as '3s' or '500ms', found {text!r}")
    lower = str(text).strip().lower()
    match = _TIME_STRING.fullmatch(lower)
    if match is None:
        raise InputError(source, key, f"cannot read {text!r} as a time (expected e.g. '3s', '500ms', '0')")
    value, suffix = int(match.group(1)), match.group(2)
    if suffix is None:
        return value
    if suffix not in _MICROS_PER_UNIT:
        valid = ", ".join(_MICROS_PER_UNIT)
        raise InputError(source, key, f"invalid time suffix {suffix!r} in {text!r} (valid: {valid})")
    micros = value * _MICROS_PER_UNIT[suffix]
    millis = abs(micros) // 1000
    return millis if micros >= 0 else -millis


def parse_flag(value: object, key: str, source: str = _CONF_SOURCE) -> bool:
    """A boolean setting: a JSON boolean or ``true`` / ``false`` in any case (Scala's
    ``toBoolean``)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InputError(source, key, f"expected true or false, found {value!r}")


def _parse_number(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(_CONF_SOURCE, key, f"expected a number, found {value!r}")
    try:
        return float(value)
    except ValueError:
        raise InputError(_CONF_SOURCE, key, f"expected a number, found {value!r}") from None


def _parse_positive_int(value: object, key: str) -> int:
    if isinstance(value, bool):
        raise InputError(_CONF_SOURCE, key, f"expected a positive integer, found {value!r}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise InputError(_CONF_SOURCE, key, f"expected a positive integer, found {value!r}") from None
    if number < 1:
        raise InputError(_CONF_SOURCE, key, f"expected a positive integer, found {value!r}")
    return number


@dataclass(frozen=True)
class LocalityWaits:
    """The delay-scheduling wait per level in milliseconds (semantics 5.3).

    ``spark.locality.wait.process`` / ``.node`` / ``.rack``, each falling back to
    ``spark.locality.wait`` (default ``3s``). ``NO_PREF`` and ``ANY`` never wait.
    """

    process_ms: int = 3000
    node_ms: int = 3000
    rack_ms: int = 3000

    @classmethod
    def from_conf(cls, conf: Mapping[str, object]) -> LocalityWaits:
        """Read the four ``spark.locality.wait*`` keys (absent keys take their defaults)."""
        default = conf.get(LOCALITY_WAIT, DEFAULT_LOCALITY_WAIT)
        base = parse_time_ms(default, LOCALITY_WAIT)

        def level(key: str) -> int:
            return parse_time_ms(conf[key], key) if key in conf else base

        return cls(level(LOCALITY_WAIT_PROCESS), level(LOCALITY_WAIT_NODE), level(LOCALITY_WAIT_RACK))

    def wait_ms(self, level: TaskLocality) -> int:
        """The wait at ``level``: 0 for ``NO_PREF`` and ``ANY``."""
        if level is TaskLocality.PROCESS_LOCAL:
            return self.process_ms
        if level is TaskLocality.NODE_LOCAL:
            return self.node_ms
        if level is TaskLocality.RACK_LOCAL:
            return self.rack_ms
        return 0


#: ``spark.speculation.minTaskRuntime`` when unset (the fixed 100 ms of every release before
#: the key existed, 3.2.0 / SPARK-33741).
DEFAULT_MIN_TASK_RUNTIME_MS = 100


@dataclass(frozen=True)
class SpeculationConf:
    """``spark.speculation*``: whether speculation runs, and ``checkSpeculatableTasks``'s
    threshold (``multiplier`` x the median successful duration once ``quantile`` of the tasks
    succeeded, at least ``min_task_runtime_ms``). Defaults are Spark 4.0's; older releases'
    come from their variant through :meth:`DispatchConf.from_spark_conf`."""

    enabled: bool = False
    multiplier: float = 3.0
    quantile: float = 0.9
    min_task_runtime_ms: int = DEFAULT_MIN_TASK_RUNTIME_MS


@dataclass(frozen=True)
class DispatchConf:
    """Everything a task set manager and the offer loop read from Spark's configuration."""

    waits: LocalityWaits = field(default_factory=LocalityWaits)
    variant: DispatchVariant = field(default_factory=DispatchVariant)
    max_task_failures: int = 4
    task_cpus: int = 1
    speculation: SpeculationConf = field(default_factory=SpeculationConf)
    external_shuffle_service: bool = False

    #: The Spark keys :meth:`from_spark_conf` reads.
    KEYS = (
        LOCALITY_WAIT,
        LOCALITY_WAIT_PROCESS,
        LOCALITY_WAIT_NODE,
        LOCALITY_WAIT_RACK,
        LEGACY_RESET,
        TASK_CPUS,
        MAX_FAILURES,
        SPECULATION,
        SPECULATION_MULTIPLIER,
        SPECULATION_QUANTILE,
        SPECULATION_MIN_RUNTIME,
        SHUFFLE_SERVICE,
    )

    @classmethod
    def from_spark_conf(cls, conf: Mapping[str, object], base: DispatchVariant | None = None) -> DispatchConf:
        """Build from Spark keys. ``base`` is the release variant; the legacy-reset key, when
        present, overrides that variant's reset rule. Keys other than :attr:`KEYS` are ignored
        (as Spark ignores keys it does not read)."""
        variant = base or DispatchVariant()
        if LEGACY_RESET in conf:
            variant = replace(variant, legacy_reset_on_task_launch=parse_flag(conf[LEGACY_RESET], LEGACY_RESET))
        speculation = SpeculationConf(
            enabled=parse_flag(conf.get(SPECULATION, False), SPECULATION),
            multiplier=_parse_number(
                conf.get(SPECULATION_MULTIPLIER, variant.default_speculation_multiplier), SPECULATION_MULTIPLIER
            ),
            quantile=_parse_number(
                conf.get(SPECULATION_QUANTILE, variant.default_speculation_quantile), SPECULATION_QUANTILE
            ),
            min_task_runtime_ms=parse_time_ms(
                conf.get(SPECULATION_MIN_RUNTIME, DEFAULT_MIN_TASK_RUNTIME_MS), SPECULATION_MIN_RUNTIME
            ),
        )
        return cls(
            waits=LocalityWaits.from_conf(conf),
            variant=variant,
            max_task_failures=_parse_positive_int(conf.get(MAX_FAILURES, 4), MAX_FAILURES),
            task_cpus=_parse_positive_int(conf.get(TASK_CPUS, 1), TASK_CPUS),
            speculation=speculation,
            external_shuffle_service=parse_flag(conf.get(SHUFFLE_SERVICE, False), SHUFFLE_SERVICE),
        )
