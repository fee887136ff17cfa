"""Paths that must name a regular file (or a file yet to be made): refused at once otherwise.

Opening a named pipe (FIFO) blocks until another process opens its other end, so an output
such as ``--trace-out`` or ``--checkpoint`` naming one would hang for ever, and so would an
input such as ``--resume``; a device (``/dev/zero``) never ends; a folder cannot be written.
:func:`refuse_special` checks a path before anything is done with it (and again just before it
is written, which narrows the window in which it could be swapped): a FIFO, a socket, a
device, a symbolic link to one of them, or a folder is one :class:`InputError` naming the path,
the option and what the path is. An empty path is refused too (``--html ''`` would otherwise
write nothing and say nothing).

The kinds and their wording are those of the input reader
(:func:`yarnspec.impl.input_files.path_kind_fault`), so inputs and outputs say the same.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import path_kind_fault, shown_name


def refuse_special(path: str | Path | None, role: str, *, must_exist: bool = False) -> None:
    """An :class:`InputError` when ``path`` (given for the option ``role``, such as
    ``--trace-out``) is empty or names anything but a regular file: a folder, a FIFO, a socket,
    a device, or a link to one. A path that does not exist yet passes unless ``must_exist``
    (an input); ``None`` (the option not given) passes."""
    if path is None:
        return
    text = os.fspath(path)
    if text == "":
        raise InputError("command line", role, "an empty path: name a file")
    try:
        os.stat(text)
    except (OSError, ValueError) as exc:
        absent = isinstance(exc, OSError) and exc.errno == errno.ENOENT
        if absent and not must_exist:
            return  # a file to be made (or a dangling link, whose target the write makes)
    fault = path_kind_fault(text)
    if fault is not None:
        raise InputError(shown_name(text), role, fault)


def is_regular_descriptor(descriptor: int) -> bool:
    """Whether an open file descriptor is a regular file (checked after a non-blocking open,
    in case the path was swapped after :func:`refuse_special` looked at it)."""
    return stat.S_ISREG(os.fstat(descriptor).st_mode)
