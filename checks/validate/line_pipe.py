"""Lines to and from a child process, every read and write within a deadline.

A thread blocked on ``readline`` cannot be stopped, and closing a stream another thread reads
blocks too, so the process adapter does not read with threads: it reads the raw pipe with
``select`` against a deadline and splits lines itself. The deadline holds whatever the
process does:

* it writes half a line and stops: the read ends at the deadline (the partial line is quoted);
* it closes its stdout but lives on: end of file, reported at once;
* it exits while a child of its own keeps the pipe open (``sleep 100 &``): no end of file ever
  comes, so once the process has exited and nothing more arrives within :data:`EXIT_GRACE_S`,
  the pipe counts as ended;
* it stops reading its stdin while a long request is written: the write ends at the deadline.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable
from dataclasses import dataclass, field

#: After the process has exited, how long to wait for the rest of its output.
EXIT_GRACE_S = 0.2
#: How often the read loop looks at whether the process is still alive.
POLL_S = 0.1
CHUNK = 65536


class PipeTimeout(Exception):
    """The deadline passed; ``partial`` holds the bytes of an unfinished line, if any."""

    def __init__(self, partial: bytes) -> None:
        super().__init__("timeout")
        self.partial = partial


class PipeClosed(Exception):
    """The other end is gone (end of file, a broken pipe, or the process exited and its pipe
    stayed silent); ``partial`` holds the bytes of an unfinished last line, if any."""

    def __init__(self, partial: bytes = b"") -> None:
        super().__init__("closed")
        self.partial = partial


class LineTooLong(Exception):
    """A line grew beyond the reader's limit before its end came."""


@dataclass
class LinePipe:
    """The write end of a child's stdin and the read end of its stdout, as raw descriptors set
    non-blocking. ``alive`` says whether the child still runs; ``max_line`` bounds a line."""

    write_fd: int
    read_fd: int
    alive: Callable[[], bool]
    max_line: int
    buffer: bytearray = field(default_factory=bytearray)
    ended: bool = False

    def __post_init__(self) -> None:
        os.set_blocking(self.write_fd, False)
        os.set_blocking(self.read_fd, False)

    def write(self, data: bytes, deadline: float) -> None:
        """All of ``data`` written before ``deadline`` (a :func:`time.monotonic` value)."""
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise PipeTimeout(b"")
            try:
                if not _ready(self.write_fd, select.POLLOUT, min(remaining, POLL_S)):
                    if not self.alive():
                        raise PipeClosed()
                    continue
                view = view[os.write(self.write_fd, view) :]
            except (BrokenPipeError, ConnectionResetError):
                raise PipeClosed() from None
            except BlockingIOError:
                continue

    def read_line(self, deadline: float) -> bytes:
        """The next line (without its newline), read before ``deadline``."""
        exited_at: float | None = None
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                return line
            if len(self.buffer) > self.max_line:
                raise LineTooLong()
            if self.ended:
                raise PipeClosed(bytes(self.buffer))
            now = time.monotonic()
            if now >= deadline:
                raise PipeTimeout(bytes(self.buffer))
            if exited_at is None and not self.alive():
                exited_at = now
            if exited_at is not None and now - exited_at >= EXIT_GRACE_S:
                self.ended = True  # exited; whatever still holds the pipe is not answering
                continue
            if _ready(self.read_fd, select.POLLIN, min(deadline - now, POLL_S)):
                try:
                    chunk = os.read(self.read_fd, CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if chunk:
                    self.buffer += chunk
                else:
                    self.ended = True


def _ready(fd: int, event: int, timeout_s: float) -> bool:
    """Whether ``fd`` is ready for ``event`` (or hung up / in error: the next read or write
    says which) within ``timeout_s``; ``poll``, unlike ``select``, takes any descriptor number."""
    poller = select.poll()
    poller.register(fd, event)
    return bool(poller.poll(max(0, int(timeout_s * 1000))))
