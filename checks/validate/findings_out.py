"""``validate --out DIR``: the folder findings are written to, checked before the run.

The folder may be missing (it is made when the first finding is written) or an existing
folder (or a link to one); anything else (a file, a named pipe, a device) is refused with one
line before any adapter starts. Each file is opened without blocking and without following a
link, so a named pipe or a link planted where a finding goes is a one-line error too, never a
hang or a write elsewhere.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import path_kind_fault, shown_name

PLACE = "--out"


def check_out_folder(out: Path) -> None:
    """Refuse ``out`` unless it is a folder or does not exist yet (module docstring)."""
    if not os.path.lexists(out):
        return
    if out.is_dir():
        return
    fault = path_kind_fault(out)
    what = "is a file" if fault is None else fault.replace(", not a file", "")
    raise InputError(PLACE, shown_name(out), f"{what}, not a folder: name a folder for the finding files")


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in a folder made if missing; any failure is an
    :class:`InputError` naming the path."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = (
            os.O_WRONLY
            | os.O_CREAT
            | os.O_TRUNC
            | os.O_NONBLOCK
            | getattr(os, "O_NOFOLLOW", 0)
            | getattr(os, "O_CLOEXEC", 0)
        )
        descriptor = os.open(path, flags, 0o644)
    except OSError as exc:
        raise InputError(PLACE, shown_name(path), _fault(exc)) from None
    with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
        if not os.path.isfile(path) or os.path.islink(path):
            raise InputError(PLACE, shown_name(path), "is not a regular file; not written")
        try:
            stream.write(text)
        except OSError as exc:
            raise InputError(PLACE, shown_name(path), _fault(exc)) from None


def _fault(exc: OSError) -> str:
    if exc.errno == errno.ENXIO:
        return "is a named pipe with no reader; not written"
    if exc.errno == errno.ELOOP:
        return "is a symbolic link; not written"
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        return "a part of the path is a file, not a folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return f"cannot write: {exc.strerror or exc}"
