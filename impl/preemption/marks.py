"""Mark, then kill after a wait: the events a round sends and the marks it remembers (Hadoop
``ProportionalCapacityPreemptionPolicy.preemptOrkillSelectedContainerAfterWait``; semantics A.12).

A chosen container is first marked for preemption (its application may give it up itself);
if a later round chooses it again once its selector's wait has passed since the mark, it is
made killable. Marks older than twice ``max_wait_before_kill`` are forgotten. Time is the
logical clock passed to the round.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

from yarnspec.impl.cluster import Container, ContainerId
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.result import EventType, PolicyState, PreemptionEvent, SelectorResult


def send_events(
    selectors: Iterable[SelectorResult],
    kill_reserved: Iterable[tuple[str, Container]],
    state: PolicyState,
    config: PreemptionConfig,
    now_ms: int,
) -> tuple[tuple[PreemptionEvent, ...], PolicyState]:
    """The round's events in sending order and the marks the next round starts from.

    ``kill_reserved`` (selector name, container) were visited during selection and come
    first. In observe-only mode nothing is sent and the marks are handed on unchanged.

    Hadoop 3: a container with a mark ``m`` and ``m + wait <= now`` is made killable and its
    mark dropped; with a younger mark nothing is sent; without a mark it is marked now.
    Hadoop 2.7.3 kills only once ``m + wait < now`` and re-sends the preemption mark every
    round until then (keeping the first mark time).
    """
    if config.observe_only:
        return (), state
    mark_once = config.rules.mark_once
    marks: dict[ContainerId, int] = dict(state.marks)
    events = [PreemptionEvent(EventType.KILL_RESERVED_CONTAINER, c, name) for name, c in kill_reserved]
    for selector in selectors:
        wait = selector.kill_wait_ms
        for container in selector.selected:
            cid = container.container_id
            marked = marks.get(cid)
            due = marked is not None and (marked + wait <= now_ms if mark_once else marked + wait < now_ms)
            if due:
                events.append(PreemptionEvent(EventType.MARK_CONTAINER_FOR_KILLABLE, container, selector.name))
                del marks[cid]
            elif marked is None or not mark_once:
                events.append(PreemptionEvent(EventType.MARK_CONTAINER_FOR_PREEMPTION, container, selector.name))
                marks.setdefault(cid, now_ms)
    horizon = 2 * config.max_wait_before_kill_ms
    kept = {cid: at for cid, at in marks.items() if not at + horizon < now_ms}
    return tuple(events), PolicyState(MappingProxyType(kept))
