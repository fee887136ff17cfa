"""The cluster of ``docs/your-cluster.md``: ten nodes (two of them gpu), seven running
applications in the realistic configuration of ``docs/examples/cluster/``.

``python -m tests.snapshot.example_cluster`` (from the project root) rewrites the two shipped
snapshots from this description; ``test_examples_are_current`` fails when they drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from yarnspec.impl.config.scheduler import load_scheduler_configuration

from .source import Source, SourceApp, SourceNode, first_fit, plain, rest

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "cluster"
CONFIG = [EXAMPLES / "capacity-scheduler.xml", EXAMPLES / "yarn-site.xml"]

NODES = tuple(
    [SourceNode(f"worker-{i:02d}.example.com:8041", 65536, 32, rack=f"/rack-{1 + (i - 1) // 4}") for i in range(1, 9)]
    + [SourceNode(f"gpu-{i:02d}.example.com:8041", 131072, 48, partition="gpu", rack="/rack-3") for i in (1, 2)]
)


def _apps() -> tuple[SourceApp, ...]:
    used: dict[str, list[int]] = {}

    def app(
        queue: str,
        user: str,
        partition: str,
        am: tuple[int, int],
        size: tuple[int, int],
        count: int,
        pending: tuple[tuple[str, int, int], ...] = (),
    ) -> SourceApp:
        sizes = [(partition, am[0], am[1], 0)] + [(partition, size[0], size[1], 1)] * count
        return SourceApp(queue, user, first_fit(NODES, sizes, used), pending)

    return (
        app("root.prod.etl", "etl", "", (2048, 1), (8192, 4), 38),
        app("root.adhoc.analysts", "ana", "", (2048, 1), (8192, 2), 12),
        app("root.prod.serving", "svc", "", (1024, 1), (8192, 4), 6),
        app("root.eng.batch.nightly", "batch", "", (2048, 1), (4096, 2), 4, (("", 65536, 32),)),
        app("root.prod.reporting", "bi", "", (2048, 1), (4096, 2), 5, (("", 16384, 8),)),
        app("root.eng.ml.training", "ml", "gpu", (4096, 2), (16384, 6), 12),
        app("root.eng.ml.inference", "ml", "gpu", (2048, 1), (16384, 4), 3, (("gpu", 32768, 8),)),
    )


EXAMPLE = Source(NODES, _apps())


def documents() -> dict[str, object]:
    """File name -> document of the shipped snapshots."""
    conf = load_scheduler_configuration(CONFIG)
    return {
        "snapshot.json": plain(EXAMPLE, "The cluster of docs/your-cluster.md in yarnspec's plain snapshot format."),
        "rest-snapshot.json": rest(EXAMPLE, conf),
    }


def dumps(document: object) -> str:
    return json.dumps(document, indent=1) + "\n"


if __name__ == "__main__":
    for name, document in documents().items():
        (EXAMPLES / name).write_text(dumps(document), encoding="utf-8")
        print(f"wrote {EXAMPLES / name}", file=sys.stderr)
