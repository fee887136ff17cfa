"""Typed reading of a case file's JSON, with the JSON place of every fault.

The Hadoop case runner and its two notation parsers read a case through these helpers, so a
wrong type or a missing field always ends in one :class:`CaseFormatError` naming the place
(``rounds[1].expect[0].count``) and the fault, and a field the runner does not know ends in
:class:`Unsupported` naming it (``../shared/conformance/README.md``: never passed silently).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from yarnspec.checks.conformance.outcome import CaseFormatError, Unsupported
from yarnspec.impl.config.keys import CAPACITY_PREFIX

#: Keys that only explain (README, "Rules common to both families"): never decide a verdict.
EXPLANATORY_KEYS = frozenset({"derived", "notes", "comment"})
EXPLANATORY_SUFFIXES = ("_note", "notes", "comment")


def is_explanatory(key: str) -> bool:
    """Whether ``key`` is an explanation rather than an upstream assertion."""
    return key in EXPLANATORY_KEYS or key.endswith(EXPLANATORY_SUFFIXES)


def nothing_to_check(detail: str) -> Unsupported:
    """The verdict of a case that asserts nothing: UNSUPPORTED, never a pass."""
    return Unsupported(f"nothing to check: {detail}; a case that asserts nothing cannot pass")


def require_step_assertions(case: Mapping[str, Any]) -> None:
    """Raise :func:`nothing_to_check` when neither the case's ``expect`` nor any step's holds
    an upstream assertion (a key that is not explanatory): the Spark families' rule."""
    steps = case.get("steps", [])
    expects = (
        [case.get("expect")] + [step.get("expect") for step in steps if isinstance(step, dict)]
        if isinstance(steps, list)
        else []
    )
    if not any(isinstance(expect, dict) and any(not is_explanatory(key) for key in expect) for expect in expects):
        raise nothing_to_check("no expect (of the case or of a step) holds an upstream assertion")


def child(place: str, key: str | int) -> str:
    """The JSON place of ``key`` (a field name or a list index) under ``place``."""
    if isinstance(key, int):
        return f"{place}[{key}]"
    return f"{place}.{key}" if place else key


def describe(value: Any) -> str:
    """A short name for the JSON type of ``value``, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def as_object(value: Any, place: str) -> Mapping[str, Any]:
    """``value`` as a JSON object, else a format error at ``place``."""
    if not isinstance(value, dict):
        raise CaseFormatError(place, f"expected an object, found {describe(value)}")
    return value


def as_list(value: Any, place: str) -> list[Any]:
    """``value`` as a JSON list, else a format error at ``place``."""
    if not isinstance(value, list):
        raise CaseFormatError(place, f"expected a list, found {describe(value)}")
    return value


#: Every integer in a case is a Java ``long`` (Hadoop's and Spark's tests use ``int`` and ``long``).
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def as_int(value: Any, place: str, minimum: int | None = None, maximum: int = LONG_MAX) -> int:
    """``value`` as an integer (a boolean is not one) of at least ``minimum`` (default: a Java
    long's least) and at most ``maximum`` (default: a Java long's largest)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise CaseFormatError(place, f"expected an integer, found {describe(value)} {value!r}")
    if value < (LONG_MIN if minimum is None else minimum):
        raise CaseFormatError(
            place, f"expected an integer >= {LONG_MIN if minimum is None else minimum}, found {value}"
        )
    if value > maximum:
        raise CaseFormatError(place, f"expected an integer <= {maximum}, found {value}")
    return value


_WHOLE_TEXT = re.compile(r"-?[0-9]{1,19}")


def whole_number_text(text: str, minimum: int = LONG_MIN, maximum: int = LONG_MAX) -> int | None:
    """An integer written in a string of a case (a resource ``"1024:2"``, a priority, a count):
    ASCII digits with an optional minus, within ``[minimum, maximum]``; ``None`` otherwise
    (Python's ``int`` would also take other scripts' digits, ``_`` and any length)."""
    stripped = text.strip(" \t")
    if not _WHOLE_TEXT.fullmatch(stripped):
        return None
    value = int(stripped)
    return value if minimum <= value <= maximum else None


def as_number(value: Any, place: str) -> float:
    """``value`` as a JSON number (integer or decimal)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CaseFormatError(place, f"expected a number, found {describe(value)} {value!r}")
    return float(value)


def as_str(value: Any, place: str) -> str:
    """``value`` as a string."""
    if not isinstance(value, str):
        raise CaseFormatError(place, f"expected a string, found {describe(value)} {value!r}")
    return value


def as_bool(value: Any, place: str) -> bool:
    """``value`` as a JSON boolean."""
    if not isinstance(value, bool):
        raise CaseFormatError(place, f"expected true or false, found {describe(value)} {value!r}")
    return value


def as_flag(value: Any, place: str) -> bool:
    """A configuration flag: a JSON boolean or the strings ``true`` / ``false`` (any case),
    as Hadoop's ``Configuration.getBoolean`` reads them."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise CaseFormatError(place, f"expected true or false, found {describe(value)} {value!r}")


def required(obj: Mapping[str, Any], key: str, place: str) -> Any:
    """``obj[key]``, or a format error naming the missing field."""
    if key not in obj:
        raise CaseFormatError(child(place, key), "missing required field")
    return obj[key]


def reject_unknown_keys(obj: Mapping[str, Any], known: Collection[str], place: str) -> None:
    """Raise :class:`Unsupported` for the first key that is neither known nor explanatory."""
    for key in obj:
        if key not in known and not is_explanatory(key):
            expected = ", ".join(sorted(known))
            raise Unsupported(f"{child(place, key)}: field {key!r} is not read by this runner (it reads: {expected})")


def quoted(place: str, key: str) -> str:
    """The place of a map entry whose key may contain dots (a queue path, a property name)."""
    return f'{place}["{key}"]'


def conf_place(key: str, place: str = "conf") -> str:
    """The place of a configuration key."""
    return quoted(place, key)


DISABLE_PREEMPTION_SUFFIX = ".disable_preemption"


def disable_preemption_key(queue_path: str) -> str:
    """The property that disables preemption for one queue path."""
    return f"{CAPACITY_PREFIX}{queue_path}{DISABLE_PREEMPTION_SUFFIX}"


def explicit_disable_preemption(conf: Mapping[str, Any], queue_path: str) -> bool | None:
    """The queue's own ``disable_preemption`` setting, or ``None`` when the conf has none."""
    key = disable_preemption_key(queue_path)
    if key not in conf:
        return None
    return as_flag(conf[key], conf_place(key))


def intra_queue_disable_key(queue_path: str) -> str:
    """The property that disables intra-queue preemption for one queue path."""
    return f"{CAPACITY_PREFIX}{queue_path}.intra-queue-preemption{DISABLE_PREEMPTION_SUFFIX}"


def explicit_intra_queue_disable(conf: Mapping[str, Any], queue_path: str) -> bool | None:
    """The queue's own ``intra-queue-preemption.disable_preemption`` setting, or ``None``."""
    key = intra_queue_disable_key(queue_path)
    if key not in conf:
        return None
    return as_flag(conf[key], conf_place(key))


def ordering_policy_key(queue_name: str) -> str:
    """The property the harness reads a leaf's application ordering policy from: the root's
    child of that short name (``ProportionalCapacityPreemptionPolicyMockFramework`` builds
    ``yarn.scheduler.capacity.root.<name>.ordering-policy``)."""
    return f"{CAPACITY_PREFIX}root.{queue_name}.ordering-policy"


def ordering_policy(conf: Mapping[str, Any], queue_name: str) -> str:
    """``fair`` when the harness would install a fair ordering policy for the leaf, else
    ``fifo`` (the harness's default and anything else it does not recognise)."""
    key = ordering_policy_key(queue_name)
    value = as_str(conf[key], conf_place(key)).strip() if key in conf else "fifo"
    return "fair" if value == "fair" else "fifo"
