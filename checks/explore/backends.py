"""Where the partitions of a parallel search run: in this process, or in local processes.

A backend holds ``count`` :class:`~.partition.SearchPartition` objects and calls one method on each
(:meth:`Backend.call`), all at once, returning the answers in partition order; and it moves
each partition's outboxes to their owners (:meth:`Backend.exchange`). Ray actors are a third
backend (:mod:`.ray_backend`).

Local processes send their outboxes to each other over a pipe between every two of them (and
then, when the states follow their keys, the requests for states and the replies): the
coordinator only passes the small per-level summaries. While a worker receives from its peers
(whichever is ready first), a thread of it sends its own messages, so no two workers can wait
on each other. A worker that waits, for its peers' outboxes or for the coordinator's next
call, computes successors ahead meanwhile (:class:`~.partition.Lookahead`).

Local processes are forked where that is safe (Linux, and no other thread running in this
process: forking a process that runs threads can leave a lock held forever); otherwise they
are spawned, each a fresh interpreter that imports yarnspec, which costs more than a second of
CPU per worker. Either way a worker builds its own model from the
:class:`~.model_source.ModelSource` (the model keeps its caches in itself, and no module keeps
any, so nothing the coordinator computed is relied on). Workers ignore SIGINT: Ctrl-C in a
terminal reaches the whole process group, and only the coordinator decides what to do (stop,
report, shut the workers down). Forked workers share this process's hash secret; spawned ones
run with the same ``PYTHONHASHSEED`` (:data:`HASH_SEED`); so Python's ``hash`` of a key is the
same in each.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol

from yarnspec.checks.explore.model_source import ModelSource
from yarnspec.checks.explore.partition import ReceivedStates, SearchOptions, SearchPartition

#: The hash seed of every worker process (any fixed value does).
HASH_SEED = "0"
#: Seconds a worker is given to exit after being asked, before it is terminated.
EXIT_GRACE = 5.0


class WorkerError(RuntimeError):
    """A worker failed; the message holds its traceback."""


class Backend(Protocol):
    """Runs the partitions of one search."""

    count: int

    def call(self, method: str, arguments: Sequence[tuple[Any, ...] | None]) -> list[Any]:
        """Call ``method`` on every partition whose ``arguments`` entry is not ``None``, all at
        once; the answers in partition order (``None`` for partitions not called)."""
        ...

    def exchange(self) -> list[ReceivedStates]:
        """Move every partition's outboxes (after ``expand``) to their owners, have each owner
        ``merge`` them, move each owner's ``request`` to its sender and the sender's ``reply``
        back, and have each owner ``receive`` the replies; the answers in partition order."""
        ...

    def close(self, wait: bool = True) -> None:
        """Stop the workers (idempotent); ``wait=False`` stops them at once (Ctrl-C)."""
        ...


class InlineBackend:
    """Every partition in this process, called one after another (one worker, or tests)."""

    def __init__(self, count: int, source: ModelSource, options: SearchOptions) -> None:
        self.count = count
        self.partitions = [SearchPartition(i, count, source, options) for i in range(count)]

    def call(self, method: str, arguments: Sequence[tuple[Any, ...] | None]) -> list[Any]:
        """Call each partition in turn."""
        return [None if args is None else getattr(p, method)(*args) for p, args in zip(self.partitions, arguments)]

    def exchange(self) -> list[ReceivedStates]:
        """Hand each outbox to its owner, each request to its sender, each reply back."""
        parts, count = self.partitions, self.count
        sent = [[p.outbox(owner) for owner in range(count)] for p in parts]
        for p in parts:
            p.merge(*(boxes[p.index] for boxes in sent))
        asked = [[b"" if sender == p.index else p.request(sender) for sender in range(count)] for p in parts]
        replies = [
            [b"" if owner == p.index else p.reply(owner, asked[owner][p.index]) for owner in range(count)]
            for p in parts
        ]
        return [p.receive(*(answers[p.index] for answers in replies)) for p in parts]

    def close(self, wait: bool = True) -> None:
        """Nothing to stop."""


#: The call that makes workers exchange their outboxes with each other.
EXCHANGE = "exchange"


def _serve(
    connection: Connection,
    peers: list[Connection | None],
    index: int,
    count: int,
    source: ModelSource,
    options: SearchOptions,
) -> None:
    """A worker process: build the partition, then answer calls until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        partition = SearchPartition(index, count, source, options)
        partition.own_process()
        connection.send(("ok", None))
        idle = partition.clock.timed("idle", connection.recv, wall=True)
        while True:
            _think_ahead(partition, connection.poll)
            message = idle()
            if message is None:
                return
            method, args = message
            if method == EXCHANGE:
                connection.send(("ok", _exchange(partition, peers)))
            else:
                connection.send(("ok", getattr(partition, method)(*args)))
    except (EOFError, BrokenPipeError):
        return  # the coordinator is gone
    except BaseException:  # noqa: BLE001 - every failure goes back to the coordinator as text
        try:
            connection.send(("error", traceback.format_exc()))
        except (OSError, EOFError):
            pass


def _exchange(partition: SearchPartition, peers: list[Connection | None]) -> ReceivedStates:
    """Swap outboxes with the peers and merge them; swap the requests for states, then the
    replies, and take them (see :meth:`Backend.exchange`)."""
    partition.merge(*_swap(partition, peers, partition.outbox))
    requests = _swap(partition, peers, partition.request)
    return partition.receive(*_swap(partition, peers, lambda owner: partition.reply(owner, requests[owner])))


def _swap(partition: SearchPartition, peers: list[Connection | None], message: Callable[[int], bytes]) -> list[bytes]:
    """Send each peer ``message(peer)`` (from a thread) while receiving one message from each
    peer in whatever order they come; the messages received, by peer (``b""`` for this one)."""
    count = len(peers)
    # each peer in turn starting after this partition, so the peers are not all sent to in the same order
    owners = [(partition.index + step) % count for step in range(1, count)]
    outgoing = [(peers[owner], message(owner)) for owner in owners]
    sender = threading.Thread(target=_send_all, args=(outgoing,), daemon=True)
    sender.start()
    inboxes = [b""] * count
    waiting = {peer: owner for owner, peer in enumerate(peers) if peer is not None}
    clock = partition.clock
    while waiting:
        _think_ahead(partition, lambda: bool(wait(list(waiting), 0)))
        started = time.perf_counter()
        readies = wait(list(waiting))
        if clock.enabled:
            clock.add("wait peers", time.perf_counter() - started)
        for ready in readies:
            assert isinstance(ready, Connection)
            inboxes[waiting.pop(ready)] = ready.recv_bytes()
    sender.join()
    return inboxes


def _think_ahead(partition: SearchPartition, ready: Callable[[], bool]) -> None:
    """Compute successors ahead (:class:`~.partition.Lookahead`) until ``ready()`` or nothing
    is left to compute: the time a worker would spend waiting for the others."""
    while not ready() and partition.step_ahead():
        pass


def _send_all(outgoing: list[tuple[Connection | None, bytes]]) -> None:
    """Send each message to its peer, in order."""
    for peer, data in outgoing:
        assert peer is not None
        peer.send_bytes(data)


def start_method() -> str:
    """``fork`` on Linux while this process runs no other thread; ``spawn`` otherwise."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


@contextmanager
def _starting_workers(seed: str) -> Iterator[None]:
    """While processes are started: ``PYTHONHASHSEED`` set (spawn copies the environment) and
    SIGINT ignored, which a new process inherits, so that Ctrl-C during a worker's start
    reaches only the coordinator."""
    before = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = seed
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        if before is None:
            del os.environ["PYTHONHASHSEED"]
        else:
            os.environ["PYTHONHASHSEED"] = before


class ProcessBackend:
    """One local process per partition (see the module docstring)."""

    def __init__(self, count: int, source: ModelSource, options: SearchOptions, method: str | None = None) -> None:
        self.count = count
        context: Any = multiprocessing.get_context(method or start_method())
        self._connections: list[Connection] = []
        self._processes: list[Any] = []
        peers: list[list[Connection | None]] = [[None] * count for _ in range(count)]
        for low in range(count):
            for high in range(low + 1, count):
                peers[low][high], peers[high][low] = context.Pipe()
        try:
            with _starting_workers(HASH_SEED):
                for index in range(count):
                    mine, theirs = context.Pipe()
                    process = context.Process(
                        target=_serve, args=(theirs, peers[index], index, count, source, options),
                        name=f"yarnspec-explore-{index}", daemon=True,
                    )  # fmt: skip
                    process.start()
                    theirs.close()
                    self._connections.append(mine)
                    self._processes.append(process)
            for connection in self._connections:
                self._answer(connection)
        except BaseException:
            self.close()
            raise
        finally:
            for ends in peers:  # the workers hold their own copies
                for end in ends:
                    if end is not None:
                        end.close()

    @staticmethod
    def _answer(connection: Connection) -> Any:
        try:
            status, value = connection.recv()
        except EOFError:
            raise WorkerError("a worker process exited unexpectedly") from None
        if status != "ok":
            raise WorkerError(f"a worker failed:\n{value}")
        return value

    def call(self, method: str, arguments: Sequence[tuple[Any, ...] | None]) -> list[Any]:
        """Send the call to every worker, then collect the answers."""
        for connection, args in zip(self._connections, arguments):
            if args is not None:
                connection.send((method, args))
        return [None if args is None else self._answer(c) for c, args in zip(self._connections, arguments)]

    def exchange(self) -> list[ReceivedStates]:
        """The workers exchange their outboxes among themselves (see the module docstring)."""
        answers: list[ReceivedStates] = self.call(EXCHANGE, [()] * self.count)
        return answers

    def close(self, wait: bool = True) -> None:
        """Ask every worker to exit (with ``wait``; else terminate it at once), and wait for all."""
        for connection in self._connections:
            try:
                connection.send(None)
            except (OSError, ValueError):
                pass
        for process in self._processes:
            process.join(EXIT_GRACE if wait else 0)
            if process.is_alive():
                process.terminate()
                process.join(EXIT_GRACE)
            if process.is_alive():
                process.kill()
                process.join()
        for connection in self._connections:
            connection.close()
        self._connections, self._processes = [], []
