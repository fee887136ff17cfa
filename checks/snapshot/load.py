"""Reading a snapshot file: which format it is, then its reader."""

from __future__ import annotations

from pathlib import Path

from yarnspec.checks.shipped_schemas import read_json_file
from yarnspec.checks.snapshot.assemble import LoadedSnapshot, assemble
from yarnspec.checks.snapshot.limits import SnapshotLimits, check_snapshot_size
from yarnspec.checks.snapshot.plain import FORMAT, read_plain
from yarnspec.checks.snapshot.records import SnapshotRecords
from yarnspec.checks.snapshot.rest import read_rest
from yarnspec.impl.config.scheduler import SchedulerConfiguration
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import shown_name


def load_records(path: str | Path, limits: SnapshotLimits = SnapshotLimits()) -> SnapshotRecords:
    """The records of a plain snapshot file or a REST bundle file, refused before validation
    when it holds more items than ``limits`` allow."""
    target = Path(path)
    document = read_json_file(target)
    source = shown_name(target)  # quoted when the name holds a line break
    if not isinstance(document, dict):
        raise InputError(source, "$", "a snapshot is a JSON object")
    check_snapshot_size(document, limits, source)
    if "format" in document:
        if document["format"] != FORMAT:
            raise InputError(source, "$.format", f"expected {FORMAT!r}, found {document['format']!r}")
        return read_plain(document, source)
    if {"scheduler", "apps", "nodes"} & set(document):
        return read_rest(document, source)
    raise InputError(
        source, "$", f'neither a plain snapshot ("format": "{FORMAT}") nor a REST bundle ("scheduler", "apps", "nodes")'
    )


def load_snapshot(
    path: str | Path, conf: SchedulerConfiguration, limits: SnapshotLimits = SnapshotLimits()
) -> LoadedSnapshot:
    """Read and check the snapshot at ``path`` against ``conf``."""
    return assemble(load_records(path, limits), conf)
