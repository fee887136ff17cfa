"""Properties of the snapshot readers over generated clusters: both formats read the same
cluster, queue figures are the sums the source states, and any stated figure that is off
by one is refused at its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.snapshot import LoadedSnapshot, load_snapshot
from yarnspec.impl.config.scheduler import load_scheduler_configuration
from yarnspec.impl.errors import InputError

from .example_cluster import CONFIG, NODES
from .source import Source, SourceApp, first_fit, plain, rest

CONF = load_scheduler_configuration(CONFIG)
LEAVES = [path for path in CONF.queues.leaves]
GPU_LEAVES = [path for path in LEAVES if CONF.queues[path].can_access("gpu")]


@st.composite
def sources(draw: st.DrawFn) -> Source:
    used: dict[str, list[int]] = {}
    apps = []
    for _ in range(draw(st.integers(1, 6))):
        gpu = draw(st.booleans())
        queue = draw(st.sampled_from(GPU_LEAVES if gpu else LEAVES))
        partition = "gpu" if gpu else ""
        count = draw(st.integers(0, 8))
        memory = draw(st.sampled_from([1024, 2048, 4096, 8192]))
        vcores = draw(st.integers(1, 4))
        pending = draw(st.integers(0, 3)) * memory
        try:
            placed = first_fit(NODES, [(partition, 1024, 1, 0)] + [(partition, memory, vcores, 1)] * count, used)
        except ValueError:
            continue
        apps.append(SourceApp(queue, "u", placed, ((partition, pending, pending // 1024),) if pending else ()))
    return Source(NODES, tuple(apps))


def _load(tmp: Path, name: str, document: object) -> LoadedSnapshot:
    path = tmp / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return load_snapshot(path, CONF)


@settings(max_examples=40)
@given(source=sources())
def test_both_formats_read_the_same_cluster(tmp_path_factory: pytest.TempPathFactory, source: Source) -> None:
    tmp = tmp_path_factory.mktemp("s")
    from_plain = _load(tmp, "p.json", plain(source)).snapshot
    from_rest = _load(tmp, "r.json", rest(source, CONF)).snapshot
    assert from_plain.queues == from_rest.queues
    assert from_plain.partitions == from_rest.partitions
    key = lambda c: (c.app_id, c.container_id.number & ((1 << 40) - 1))  # noqa: E731 - the REST ids carry an epoch
    assert sorted((key(c), c.node, c.resource, c.is_am) for c in from_plain.containers) == sorted(
        (key(c), c.node, c.resource, c.is_am) for c in from_rest.containers
    )
    usage = source.usage(CONF)
    for (path, partition), (used_m, used_v, pend_m, pend_v) in usage.items():
        figures = from_plain.queues[path].at(partition)
        assert (figures.used.memory, figures.used.vcores) == (used_m, used_v)
        assert (figures.pending.memory, figures.pending.vcores) == (pend_m, pend_v)


@settings(max_examples=40)
@given(source=sources(), data=st.data())
def test_a_stated_figure_off_by_one_is_refused(
    tmp_path_factory: pytest.TempPathFactory, source: Source, data: st.DataObject
) -> None:
    document = rest(source, CONF)
    queues = []
    stack = [document["scheduler"]["scheduler"]["schedulerInfo"]]
    while stack:
        queue = stack.pop()
        queues.append(queue)
        stack.extend((queue.get("queues") or {}).get("queue", []))
    queue = data.draw(st.sampled_from(queues))
    usage = data.draw(st.sampled_from(queue["resources"]["resourceUsagesByPartition"]))
    field = data.draw(
        st.sampled_from(["used", "pending"] if queue.get("type") != "capacitySchedulerLeafQueueInfo" else ["used"])
    )
    usage[field]["memory"] += 1
    with pytest.raises(InputError) as raised:
        _load(tmp_path_factory.mktemp("s"), "r.json", document)
    assert f"queue {queue['queuePath']} partition" in str(raised.value)
