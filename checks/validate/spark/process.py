"""A small client of the process protocol (docs/spark-validation.md): start an adapter, send
``{"id", "op", "input"}`` lines, read ``{"id", "output"}`` or ``{"id", "error"}`` answers.

It is what the Spark differential run needs and no more: one request at a time, a time limit
per answer, and every fault of the child (it exits, prints something that is not an answer,
answers another id, takes too long) raised as an :class:`AdapterFailure` with the offending
line and the tail of the child's stderr.
"""

from __future__ import annotations

import json
import selectors
import subprocess
import tempfile
import time
from collections.abc import Sequence
from typing import IO, Any

from yarnspec.impl.errors import InputError


class AdapterFailure(InputError):
    """The adapter process misbehaved (crashed, hung, or broke the protocol)."""


class AdapterError(Exception):
    """The adapter answered a request with ``{"error": ...}`` (an op it does not support, or an
    input it refuses); the session goes on."""


class AdapterProcess:
    """One running adapter. Use as a context manager; :meth:`close` ends the child."""

    def __init__(self, command: Sequence[str], contract: str, timeout: float = 60.0) -> None:
        self.command = list(command)
        self.timeout = timeout
        self._stderr: IO[str] = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        self._proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._selector = selectors.DefaultSelector()
        assert self._proc.stdout is not None
        self._selector.register(self._proc.stdout, selectors.EVENT_READ)
        self._next_id = 1
        #: Set when the child stopped answering: it is killed rather than asked to stop.
        self._broken = False
        try:
            self.hello = self.request("hello", {"protocol": 1, "contract": contract})
            if contract not in self.hello.get("contracts", []):
                raise AdapterFailure(self._label(), "hello", f"adapter does not implement {contract}")
        except (AdapterFailure, AdapterError):
            self.close()
            raise

    def _label(self) -> str:
        return " ".join(self.command[-1:]) or "adapter"

    def stderr_tail(self, lines: int = 5) -> str:
        """The last lines the child wrote to stderr."""
        self._stderr.seek(0)
        return " | ".join(self._stderr.read().strip().splitlines()[-lines:])

    def request(self, op: str, payload: Any, timeout: float | None = None) -> dict[str, Any]:
        """Send one request and return its ``output``; an ``error`` answer raises
        :class:`AdapterError`, a broken child :class:`AdapterFailure`."""
        request_id = self._next_id
        self._next_id += 1
        line = json.dumps({"id": request_id, "op": op, "input": payload})
        assert self._proc.stdin is not None and self._proc.stdout is not None
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            raise AdapterFailure(
                self._label(), f"request {request_id} ({op})", f"the adapter exited: {self.stderr_tail()}"
            ) from None
        deadline = time.monotonic() + (timeout or self.timeout)
        while not self._selector.select(timeout=max(0.0, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                self._broken = True
                raise AdapterFailure(
                    self._label(), f"request {request_id} ({op})", f"no answer within {timeout or self.timeout:g} s"
                )
        answer_line = self._proc.stdout.readline()
        if not answer_line:
            raise AdapterFailure(
                self._label(), f"request {request_id} ({op})", f"the adapter exited: {self.stderr_tail()}"
            )
        try:
            answer = json.loads(answer_line)
        except json.JSONDecodeError:
            raise AdapterFailure(
                self._label(), f"request {request_id} ({op})", f"not a JSON answer: {answer_line.strip()[:200]!r}"
            ) from None
        if not isinstance(answer, dict) or answer.get("id") != request_id:
            raise AdapterFailure(
                self._label(),
                f"request {request_id} ({op})",
                f"answer to another request: {answer_line.strip()[:200]!r}",
            )
        if "error" in answer:
            raise AdapterError(str(answer["error"]))
        output = answer.get("output")
        if not isinstance(output, dict):
            raise AdapterFailure(
                self._label(),
                f"request {request_id} ({op})",
                f"answer without an output object: {answer_line.strip()[:200]!r}",
            )
        return output

    def close(self) -> None:
        """Close stdin (the adapter's signal to stop) and wait; kill it if it lingers."""
        if self._broken and self._proc.poll() is None:
            self._proc.kill()
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
                self._proc.wait(timeout=20)
            except (subprocess.TimeoutExpired, BrokenPipeError):
                self._proc.kill()
                self._proc.wait()
        self._selector.close()
        self._stderr.close()

    def __enter__(self) -> AdapterProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
