"""``--impl process:COMMAND...``: an implementation in any language behind the JSON-lines
process protocol (``docs/validating.md``; schema ``protocol.schema.json``).

yarnspec starts the command in a process group of its own, says ``hello``, then writes one
request per line and reads one answer per line, each within a deadline that holds for half
lines, closed streams and children holding the pipe (:mod:`.line_pipe`). Every answer is held
to the limits of :mod:`.answer_check` and checked against the schema; any
breach is an :class:`AdapterFault` quoting the offending line, the process is killed, and the
next session starts a new one. The process is kept across sessions while it behaves (a JVM
need not start once per case).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from typing import IO, Any, NoReturn

from yarnspec.checks.validate.adapter import AdapterFault, StartFault
from yarnspec.checks.validate.answer_check import MAX_ANSWER_BYTES, output_fault, parse_answer_line
from yarnspec.checks.validate.line_pipe import LinePipe, LineTooLong, PipeClosed, PipeTimeout
from yarnspec.checks.validate.schema import schema_fault
from yarnspec.spec.contracts import Contract
from yarnspec.spec.contracts.call import Answer

PROTOCOL_VERSION = 1
#: How much of an offending line a fault message quotes.
QUOTE = 200
#: How long to wait for the exit code of a process whose stdout ended.
EXIT_WAIT_S = 0.5
#: How long to wait for a killed process to be reaped.
KILL_WAIT_S = 2.0
#: How much of the end of the process's stderr is read for its last line.
STDERR_TAIL_BYTES = 4096


class NotImplemented_(StartFault):
    """The adapter's ``hello`` does not list the contract."""


def quoted(line: str) -> str:
    """An offending line, shortened to :data:`QUOTE` characters."""
    line = line.rstrip("\n")
    return repr(line if len(line) <= QUOTE else line[:QUOTE] + "...")


class ProcessSession:
    """One running process speaking the protocol, in a process group of its own (so that its
    children die with it), read and written through a :class:`~.line_pipe.LinePipe`: no
    request waits longer than its timeout, whatever the process does."""

    def __init__(self, command: list[str], contract: Contract, timeout_s: float, start_timeout_s: float) -> None:
        self.command = command
        self.contract = contract
        self.timeout_s = timeout_s
        self.next_id = 1
        self.stderr: IO[bytes] = tempfile.TemporaryFile("w+b")
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                bufsize=0,
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            self.stderr.close()
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise StartFault(f"cannot start {' '.join(command)}: {reason}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.pipe = LinePipe(self.proc.stdin.fileno(), self.proc.stdout.fileno(), self._running, MAX_ANSWER_BYTES)
        try:
            hello = self._request("hello", {"protocol": PROTOCOL_VERSION, "contract": contract.name}, start_timeout_s)
        except AdapterFault as exc:
            raise StartFault(str(exc)) from None
        if hello.error is not None:
            self.close()
            raise StartFault(f"hello: the adapter answered with an error: {quoted(hello.error)}")
        assert hello.output is not None
        self.hello = hello.output
        if contract.name not in hello.output["contracts"]:
            self.close()
            listed = ", ".join(str(name)[:QUOTE] for name in hello.output["contracts"][:20])
            raise NotImplemented_(f"adapter does not implement {contract.name} (it implements: {listed or 'nothing'})")

    def _running(self) -> bool:
        return self.proc.poll() is None

    @property
    def alive(self) -> bool:
        """Whether the process is still running and its stdout open."""
        return self._running() and not self.pipe.ended

    def call(self, op: str, input: dict[str, Any]) -> Answer:
        """One request and its checked answer."""
        return self._request(op, input, self.timeout_s)

    def _request(self, op: str, input: dict[str, Any], timeout_s: float) -> Answer:
        request_id = self.next_id
        self.next_id += 1
        what = f"request {request_id} ({op})"
        deadline = time.monotonic() + timeout_s
        request = (json.dumps({"id": request_id, "op": op, "input": input}) + "\n").encode("utf-8")
        try:
            self.pipe.write(request, deadline)
            data = self.pipe.read_line(deadline)
        except PipeTimeout as exc:
            partial = (
                f" (it wrote part of a line and stopped: {quoted(_text(exc.partial))})"
                if exc.partial
                else " (the process hangs)"
            )
            self._fail(f"{what}: no answer within {timeout_s:g} s{partial}; killed")
        except PipeClosed as exc:
            self._exited(what, exc.partial)
        except LineTooLong:
            self._fail(f"{what}: the answer is longer than the limit of {MAX_ANSWER_BYTES:,} bytes; killed")
        checked = checked_answer(data, request_id, self.contract.name, op)
        if isinstance(checked, str):
            self._fail(f"{what}: {checked}")
        return checked

    def _exited(self, what: str, partial: bytes) -> NoReturn:
        """The process is gone or its stdout closed (whether noticed writing or reading)."""
        try:
            code: int | None = self.proc.wait(timeout=EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            code = None
        cut = f" (its last line unfinished: {quoted(_text(partial))})" if partial else ""
        if code is None:
            self._fail(f"{what}: the process closed its stdout before answering{cut}{self._stderr_tail()}; killed")
        self._fail(f"{what}: the process exited with code {code} before answering{cut}{self._stderr_tail()}")

    def _stderr_tail(self) -> str:
        try:
            self.stderr.flush()
            size = self.stderr.seek(0, os.SEEK_END)
            self.stderr.seek(max(0, size - STDERR_TAIL_BYTES))
            text = self.stderr.read().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return f"; stderr: {lines[-1][:QUOTE]}" if lines else ""

    def _fail(self, message: str) -> NoReturn:
        self.close()
        raise AdapterFault(" ".join(message.split("\n")))

    def close(self) -> None:
        """Kill the process group (the process and any child it left holding the pipes; it
        runs in its own session), reap the process and close the pipes."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=KILL_WAIT_S)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if not self.stderr.closed:
            self.stderr.close()


def checked_answer(data: bytes, request_id: int, contract: str, op: str) -> Answer | str:
    """One answer line (without its newline) to request ``request_id`` for ``op``: the
    :class:`Answer`, or the fault in one line quoting the line (never an exception)."""
    line = quoted(_text(data))
    answer, fault = parse_answer_line(data)
    if fault is not None:
        return f"{fault}: {line}"
    fault = schema_fault("answer", answer)
    if fault is not None:
        return f"the answer breaks the protocol schema at {fault}: {line}"
    if answer["id"] != request_id:
        return f"the answer has id {answer['id']}, expected {request_id}: {line}"
    if "error" in answer:
        return Answer(error=answer["error"])
    fault = output_fault(contract, op, answer["output"])
    return f"{fault}: {line}" if fault is not None else Answer(output=answer["output"])


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class ProcessAdapter:
    """An implementation started as ``command``; one live process at a time."""

    def __init__(
        self, command: list[str], contract: Contract, label: str, timeout_s: float, start_timeout_s: float
    ) -> None:
        self.command = command
        self.contract = contract
        self.label = label
        self.timeout_s = timeout_s
        self.start_timeout_s = start_timeout_s
        self.session: ProcessSession | None = None

    def open(self) -> ProcessSession:
        """The live process, or a new one if the last one faulted or exited."""
        if self.session is None or not self.session.alive:
            if self.session is not None:
                self.session.close()
            self.session = ProcessSession(self.command, self.contract, self.timeout_s, self.start_timeout_s)
        return self.session

    def close(self) -> None:
        """Kill the live process, if any."""
        if self.session is not None:
            self.session.close()
            self.session = None
