"""What ``yarnspec config`` says about the keys of a configuration beyond the queue tree.

Every property under the scheduler's prefixes (``yarn.scheduler.capacity.`` and
``yarn.resourcemanager.monitor.capacity.preemption.``) is sorted into one of:

- **read**: the model reads it;
- **ignored**: a real Hadoop setting the model does not read because it does not change the
  answers yarnspec gives (ACLs, application counts, lifetimes, placement rules, ...);
- **not modelled**: a real setting whose feature the model does not cover, set so that the
  feature is on (intra-queue preemption, lazy preemption, auto-created queues, reservations,
  ...): the model's answers do not account for it, so it is a warning;
- **unknown**: not a Hadoop setting at all, usually a misspelling (a warning, with the closest
  known key as "did you mean").

The catalogue below is Hadoop 3.x's ``CapacitySchedulerConfiguration`` and
``CapacitySchedulerConfiguration``-level preemption keys (names only, as facts).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from yarnspec.impl.config.capacity import ROOT
from yarnspec.impl.config.keys import CAPACITY_PREFIX, PREEMPTION_PREFIX
from yarnspec.impl.config.scheduler import SchedulerConfiguration
from yarnspec.impl.config.warning import ConfigWarning
from yarnspec.impl.preemption.config import KNOWN_KEYS as PREEMPTION_KEYS
from yarnspec.impl.preemption.policy import UNMODELLED_SETTINGS

Kind = Literal["unknown", "not-modelled", "ignored"]

#: Per-queue settings the model reads (after ``yarn.scheduler.capacity.<queue path>.``).
QUEUE_READ = frozenset(
    {
        "capacity", "maximum-capacity", "queues", "state", "accessible-node-labels", "default-node-label-expression",
        "disable_preemption", "priority", "maximum-am-resource-percent", "minimum-user-limit-percent",
        "user-limit-factor", "ordering-policy", "auto-create-child-queue.enabled", "auto-queue-creation-v2.enabled",
    }
)  # fmt: skip
#: Per-queue Hadoop settings the model does not read.
QUEUE_IGNORED = frozenset(
    {
        "maximum-applications", "maximum-allocation-mb", "maximum-allocation-vcores", "maximum-allocation",
        "acl_submit_applications", "acl_administer_queue", "acl_administer_reservations", "acl_list_reservations",
        "acl_submit_reservations", "acl_application_max_priority", "default-application-priority",
        "max-parallel-apps", "maximum-application-lifetime", "default-application-lifetime",
        "intra-queue-preemption.disable_preemption", "allow-zero-capacity-sum", "ordering-policy.fair.enable-size-based-weight",
        "ordering-policy.exclusive-enforced-partitions", "multi-node-sorting.policy", "auto-create-child-queue.max-queues",
        "auto-create-child-queue.fallback-to-parent", "auto-queue-creation-v2.max-queues", "reservable", "reservation-agent",
        "reservation-planner", "reservation-window", "average-capacity", "instantaneous-max-capacity",
        "reservation-move-on-expiry", "reservation-enforcement-window", "show-reservations-as-queues",
        "reservation-policy", "reservation-planner.init-time", "minimum-user-limit-percent-ttl",
        "disable_preemption.lazy", "user-limit", "queue-mappings",
    }
)  # fmt: skip
#: Per-queue setting families (a prefix then free words).
QUEUE_FAMILIES = ("leaf-queue-template.", "auto-queue-creation-v2.", "user-settings.")
_LABEL_SETTING = re.compile(r"accessible-node-labels\.[^.]+\.(capacity|maximum-capacity)")
_IGNORED_LABEL_SETTING = re.compile(
    r"accessible-node-labels\.[^.]+\.(maximum-am-resource-percent|maximum-allocation.*)"
)

#: Global CapacityScheduler keys (after ``yarn.scheduler.capacity.``) the model reads.
GLOBAL_READ = frozenset({"resource-calculator", "maximum-am-resource-percent", "lazy-preemption-enabled",
                         "ordering-policy.priority-utilization.underutilized-preemption.enabled"})  # fmt: skip
#: Global CapacityScheduler keys the model does not read.
GLOBAL_IGNORED = frozenset(
    {
        "maximum-applications", "node-locality-delay", "rack-locality-additional-delay", "rack-locality-full-reset",
        "queue-mappings", "queue-mappings-override.enable", "app-name-mappings", "workflow-priority-mappings",
        "workflow-priority-mappings-override.enable", "per-node-heartbeat.maximum-offswitch-assignments",
        "per-node-heartbeat.multiple-assignments-enabled", "per-node-heartbeat.maximum-container-assignments",
        "schedule-asynchronously.enable", "schedule-asynchronously.maximum-threads",
        "schedule-asynchronously.maximum-pending-backlogs", "schedule-asynchronously.scheduling-interval-ms",
        "reservations-continue-look-all-nodes", "multi-node-placement-enabled", "multi-node-sorting.policy",
        "multi-node-sorting.policy.names", "user-metrics.enable", "global-queue-max-application", "application.fail-fast",
        "max-parallel-apps", "assignment.multiple", "configuration.provider", "legacy-queue-mode.enabled",
        "mapping-rule-format", "mapping-rule-json", "mapping-rule-json-file", "queue-management-monitor.enable",
        "ordering-policy.priority-utilization.underutilized-preemption.reserved-container-delay-ms",
        "preemption.observe_only", "node-labels.initial.max-pending-apps",
    }
)  # fmt: skip
_GLOBAL_FAMILIES = ("multi-node-sorting.policy.", "user-settings.", "workflow-priority-mappings.", "maximum-lifetime")

#: Preemption keys (after the preemption prefix) the model does not read.
PREEMPTION_IGNORED = frozenset(
    {
        "intra-queue-preemption.minimum-threshold", "intra-queue-preemption.max-allowable-limit",
        "intra-queue-preemption.preemption-order-policy", "skip_am_container_from_preemption",
        "reserved-container-delay-ms",
    }
)  # fmt: skip


@dataclass(frozen=True)
class LintFinding:
    """One key and what the model makes of it; ``message`` says it in a sentence."""

    kind: Kind
    key: str
    location: str
    message: str

    @property
    def warning_id(self) -> str:
        """The stable id of the warning this finding is (``unknown-key``, ``not-modelled``);
        an ignored key is no warning and has the id ``ignored``."""
        return {"unknown": "unknown-key", "not-modelled": "not-modelled"}.get(self.kind, "ignored")


def lint(conf: SchedulerConfiguration) -> list[LintFinding]:
    """Every unknown, not-modelled and ignored key of ``conf``, in file order of keys."""
    findings: list[LintFinding] = []
    queues = set(conf.queues.queues)
    for key in conf.properties.names():
        if key.startswith(PREEMPTION_PREFIX):
            finding = _preemption_key(conf, key)
        elif key.startswith(CAPACITY_PREFIX + ROOT + ".") or key == CAPACITY_PREFIX + ROOT:
            finding = _queue_key(conf, key, queues)
        elif key.startswith(CAPACITY_PREFIX):
            finding = _global_key(conf, key)
        else:
            finding = None
        if finding is not None:
            findings.append(finding)
    findings += _not_modelled(conf)
    return findings


def warnings_of(findings: Iterable[LintFinding]) -> list[str]:
    """The findings that are warnings (unknown and not-modelled keys), as lines."""
    return [f"{f.location}: {f.key}: {f.message}" for f in findings if f.kind != "ignored"]


def all_warnings(conf: SchedulerConfiguration, findings: Iterable[LintFinding]) -> list[ConfigWarning]:
    """Every warning ``config`` prints for ``conf``: the reader's, then the findings that are
    warnings, each with its stable id and key."""
    read = [w if isinstance(w, ConfigWarning) else ConfigWarning("other", "", w) for w in conf.warnings]
    return read + [
        ConfigWarning(f.warning_id, f.key, line) for f in findings if f.kind != "ignored" for line in warnings_of([f])
    ]


def _did_you_mean(word: str, candidates: Iterable[str], render: Callable[[str], str]) -> str:
    close = difflib.get_close_matches(word, sorted(candidates), n=1, cutoff=0.7)
    return f"; did you mean {render(close[0])}?" if close else ""


def _unknown(conf: SchedulerConfiguration, key: str, what: str, hint: str) -> LintFinding:
    return LintFinding("unknown", key, conf.properties.location(key), f"not a {what} Hadoop knows, ignored{hint}")


def _ignored(conf: SchedulerConfiguration, key: str) -> LintFinding:
    return LintFinding("ignored", key, conf.properties.location(key), "a Hadoop setting the model does not read")


def _preemption_key(conf: SchedulerConfiguration, key: str) -> LintFinding | None:
    word = key[len(PREEMPTION_PREFIX) :]
    if key in PREEMPTION_KEYS:
        return None
    if word in PREEMPTION_IGNORED:
        return _ignored(conf, key)
    known = [k[len(PREEMPTION_PREFIX) :] for k in PREEMPTION_KEYS if k.startswith(PREEMPTION_PREFIX)] + sorted(
        PREEMPTION_IGNORED
    )
    return _unknown(conf, key, "preemption setting", _did_you_mean(word, known, lambda w: PREEMPTION_PREFIX + w))


def _global_key(conf: SchedulerConfiguration, key: str) -> LintFinding | None:
    word = key[len(CAPACITY_PREFIX) :]
    if word in GLOBAL_READ:
        return None
    if word in GLOBAL_IGNORED or word.startswith(_GLOBAL_FAMILIES):
        return _ignored(conf, key)
    return _unknown(
        conf,
        key,
        "CapacityScheduler setting",
        _did_you_mean(word, GLOBAL_READ | GLOBAL_IGNORED, lambda w: CAPACITY_PREFIX + w),
    )


def _queue_key(conf: SchedulerConfiguration, key: str, queues: set[str]) -> LintFinding | None:
    parts = key[len(CAPACITY_PREFIX) :].split(".")
    depth = max(i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in queues)
    owner, setting = ".".join(parts[:depth]), ".".join(parts[depth:])
    if setting in QUEUE_READ or _LABEL_SETTING.fullmatch(setting):
        return None
    if setting in QUEUE_IGNORED or setting.startswith(QUEUE_FAMILIES) or _IGNORED_LABEL_SETTING.fullmatch(setting):
        return _ignored(conf, key)
    rest = setting.split(".")
    if len(rest) > 1 and (
        ".".join(rest[1:]) in QUEUE_READ | QUEUE_IGNORED or rest[1] in ("accessible-node-labels", "leaf-queue-template")
    ):
        return None  # a setting of a queue missing from the tree: the queue reader warns about it
    hint = _did_you_mean(setting, QUEUE_READ | QUEUE_IGNORED, lambda w: f"{CAPACITY_PREFIX}{owner}.{w}")
    return _unknown(conf, key, f"setting of queue {owner}", hint)


def _not_modelled(conf: SchedulerConfiguration) -> list[LintFinding]:
    """Settings that switch on a feature the model does not cover."""
    found = []
    for attribute, key in UNMODELLED_SETTINGS:
        if getattr(conf.preemption, attribute):
            found.append(
                LintFinding("not-modelled", key, conf.properties.location(key), _NOT_MODELLED_REASON[attribute])
            )
    for queue in conf.queues:
        for setting, reason in _QUEUE_FEATURES.items():
            key = f"{CAPACITY_PREFIX}{queue.path}.{setting}"
            if (conf.properties.get_trimmed(key) or "").lower() == "true":
                found.append(LintFinding("not-modelled", key, conf.properties.location(key), reason))
    return found


_NOT_MODELLED_REASON = {
    "intra_queue_enabled": "intra-queue preemption is on: the model covers inter-queue preemption only, so preempt and explore refuse this configuration",
    "underutilized_preemption_enabled": "preemption for under-utilized queues by priority is on: not modelled, so preempt and explore refuse this configuration",
}
_QUEUE_FEATURES = {
    "auto-create-child-queue.enabled": "auto-created leaf queues are not modelled: the queue is a parent without children and gets no applications",
    "auto-queue-creation-v2.enabled": "auto-created queues (v2) are not modelled: the queue is a parent without children and gets no applications",
    "reservable": "the reservation system is not modelled: the queue is read as a plain leaf",
}
