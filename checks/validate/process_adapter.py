"""``--impl process:COMMAND...``: an implementation in any language behind the JSON-lines
process protocol (``docs/validating.md``; schema ``protocol.schema.json``).

yarnspec starts the command, says ``hello``, then writes one request per line and reads one
answer per line, each within a timeout. Every answer is checked against the schema; any
breach is an :class:`AdapterFault` quoting the offending line, the process is killed, and the
next session starts a new one. The process is kept across sessions while it behaves (a JVM
need not start once per case).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import tempfile
import threading
from typing import IO, Any, NoReturn

from yarnspec.spec.contracts import Contract
from yarnspec.spec.contracts.call import Answer

from yarnspec.checks.validate.adapter import AdapterFault, StartFault
from yarnspec.checks.validate.schema import output_definition, schema_fault

PROTOCOL_VERSION = 1
#: How much of an offending line a fault message quotes.
QUOTE = 200


class NotImplemented_(StartFault):
    """The adapter's ``hello`` does not list the contract."""


def quoted(line: str) -> str:
    """An offending line, shortened to :data:`QUOTE` characters."""
    line = line.rstrip("\n")
    return repr(line if len(line) <= QUOTE else line[:QUOTE] + "...")


class ProcessSession:
    """One running process speaking the protocol."""

    def __init__(self, command: list[str], contract: Contract, timeout_s: float, start_timeout_s: float) -> None:
        self.command = command
        self.contract = contract
        self.timeout_s = timeout_s
        self.next_id = 1
        self.stderr: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.lines: queue.Queue[str | None] = queue.Queue()
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                start_new_session=True,
            )
        except OSError as exc:
            self.stderr.close()
            raise StartFault(f"cannot start {' '.join(command)}: {exc.strerror or exc}") from None
        assert self.proc.stdout is not None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()
        try:
            hello = self._request("hello", {"protocol": PROTOCOL_VERSION, "contract": contract.name}, start_timeout_s)
        except AdapterFault as exc:
            raise StartFault(str(exc)) from None
        if hello.error is not None:
            self.close()
            raise StartFault(f"hello: the adapter answered with an error: {hello.error}")
        assert hello.output is not None
        self.hello = hello.output
        if contract.name not in hello.output["contracts"]:
            self.close()
            raise NotImplemented_(f"adapter does not implement {contract.name} (it implements: {', '.join(hello.output['contracts']) or 'nothing'})")

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)

    @property
    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc.poll() is None

    def call(self, op: str, input: dict[str, Any]) -> Answer:
        """One request and its checked answer."""
        return self._request(op, input, self.timeout_s)

    def _request(self, op: str, input: dict[str, Any], timeout_s: float) -> Answer:
        request_id = self.next_id
        self.next_id += 1
        what = f"request {request_id} ({op})"
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"id": request_id, "op": op, "input": input}) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._exited(what)
        try:
            line = self.lines.get(timeout=timeout_s)
        except queue.Empty:
            self._fail(f"{what}: no answer within {timeout_s:g} s (the process hangs); killed")
        if line is None:
            self._exited(what)
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            self._fail(f"{what}: the answer is not a JSON line: {quoted(line)}")
        fault = schema_fault("answer", answer)
        if fault is not None:
            self._fail(f"{what}: the answer breaks the protocol schema at {fault}: {quoted(line)}")
        if answer["id"] != request_id:
            self._fail(f"{what}: the answer has id {answer['id']}, expected {request_id}: {quoted(line)}")
        if "error" in answer:
            return Answer(error=answer["error"])
        definition = output_definition(self.contract.name, op)
        if definition is not None:
            fault = schema_fault(definition, answer["output"])
            if fault is not None:
                self._fail(f"{what}: the output breaks the protocol schema ({definition}) at {fault}: {quoted(line)}")
        return Answer(output=answer["output"])

    def _exited(self, what: str) -> NoReturn:
        """The process is gone (whether noticed writing or reading): one message for both."""
        try:
            code: int | None = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self._fail(f"{what}: the process exited with code {code} before answering{self._stderr_tail()}")

    def _stderr_tail(self) -> str:
        self.stderr.flush()
        self.stderr.seek(0)
        lines = [line.strip() for line in self.stderr.read().splitlines() if line.strip()]
        return f"; stderr: {lines[-1][:QUOTE]}" if lines else ""

    def _fail(self, message: str) -> NoReturn:
        self.close()
        raise AdapterFault(message)

    def close(self) -> None:
        """Kill the process (and its children: it runs in its own session) and wait for it."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=10)
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


class ProcessAdapter:
    """An implementation started as ``command``; one live process at a time."""

    def __init__(self, command: list[str], contract: Contract, label: str, timeout_s: float, start_timeout_s: float) -> None:
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
