"""The partitions of a parallel search as Ray actors (``yarnspec explore --ray [ADDRESS]``).

Each partition is one actor (:class:`~.partition.Partition` made remote), so Ray places them
on the cluster's processes and machines and carries their outboxes from actor to actor
through its object store; the coordinator runs in this process, calls every actor once per
step, as with local processes, and holds only references to the outboxes. With no address
``ray.init()`` starts a local Ray instance; ``auto`` joins the cluster this machine belongs to
(``ray start --head`` on it); ``host:port`` joins the cluster whose head listens there, and
``ray://host:10001`` connects through Ray Client (``pip install 'ray[client]'``, which the
``ray`` extra installs). Every actor
runs with the same ``PYTHONHASHSEED`` (a runtime environment variable) so Python's ``hash``
agrees between them, and yarnspec must be installed where the actors run.

Ray is optional: ``pip install 'yarnspec[ray]'``.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from yarnspec.impl.errors import InputError

if TYPE_CHECKING:
    from .model_source import ModelSource
    from .partition import Candidates, SearchOptions

#: The address meaning "start a local Ray instance".
LOCAL = "local"

#: Seconds to wait for a Ray head to accept a connection before the run is refused.
CONNECT_TIMEOUT = 5.0

#: Ray Client's scheme: ``ray://host:port``.
CLIENT_SCHEME = "ray://"


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """An :class:`InputError` unless something accepts a connection at ``address`` when it is
    ``host:port`` or ``ray://host:port`` (other forms, ``auto`` among them, are left to Ray).
    Ray's own connection to an address where nothing listens retries for minutes, logging as
    it goes, so the run would seem to hang."""
    target = address.removeprefix(CLIENT_SCHEME)
    host, colon, port = target.rpartition(":")
    if not colon or not host or not port.isdigit():
        return
    host = host.removeprefix("[").removesuffix("]")  # an IPv6 address in brackets
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise InputError("explore", "--ray", f"cannot connect to Ray at {address}: {host}:{port}: {reason}") from None


#: Attempts at connecting through Ray Client. Its proxy forks a server for each new client, and
#: that server sometimes dies as it is forked (a gRPC race, ray-project/ray#63202: about 7% of
#: connections), which fails that attempt only, with :data:`_CLIENT_SERVER_DIED`.
CLIENT_ATTEMPTS = 3
_CLIENT_SERVER_DIED = "Initialization failure from server"


def connect(ray: Any, address: str, **options: Any) -> None:
    """``ray.init(address=address, **options)``, tried again (up to :data:`CLIENT_ATTEMPTS` in
    all) when Ray Client's server for this client died as it started."""
    for attempt in range(1, CLIENT_ATTEMPTS + 1):
        try:
            ray.init(address=address, **options)
            return
        except ConnectionError as exc:
            retry = address.startswith(CLIENT_SCHEME) and str(exc).startswith(_CLIENT_SERVER_DIED)
            if not retry or attempt == CLIENT_ATTEMPTS:
                raise
            if ray.is_initialized():
                ray.shutdown()


def one_line(exc: BaseException) -> str:
    """An exception's message on one line: its first line, and when that only introduces what
    follows (``Initialization failure from server:`` and a traceback), the last line too."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
    if lines[0].endswith(":") and len(lines) > 1:
        return f"{lines[0]} {lines[-1]}"
    return lines[0]


#: What Ray's core logs when the cluster wants a token it was not given.
_TOKEN_REFUSED = "InvalidAuthToken"


def _token_hint(address: str, logged: str) -> str:
    """A hint to add when the cluster refused us for want of its token, or when Ray Client
    timed out without one (what a cluster with tokens does to a client without one)."""
    if os.environ.get("RAY_AUTH_MODE") == "token":
        return ""
    if _TOKEN_REFUSED in logged or address.startswith(CLIENT_SCHEME):
        return (
            " (a cluster of Ray 2.59 or later may require its token: run with RAY_AUTH_MODE=token and, on "
            "another machine than the head, RAY_AUTH_TOKEN set to what `ray get-auth-token` prints on the head)"
        )
    return ""


class Captured:
    """What was written to the process's standard error while :func:`stderr_captured` held it."""

    def __init__(self) -> None:
        self.text = ""


@contextmanager
def stderr_captured() -> Iterator[Captured]:
    """Hold what is written to file descriptor 2 meanwhile (Ray's core logs its connection
    retries there, line after line, whatever the logging level), so that a failure is one line;
    the text is kept for the caller to read."""
    captured = Captured()
    sys.stderr.flush()
    with tempfile.TemporaryFile("w+b") as held:
        saved = os.dup(2)
        os.dup2(held.fileno(), 2)
        try:
            yield captured
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            captured.text = held.read().decode(errors="replace")


class RayBackend:
    """``count`` partitions as Ray actors on the cluster at ``address``."""

    def __init__(self, count: int, source: ModelSource, options: SearchOptions, address: str = LOCAL) -> None:
        # imported here: ``yarnspec explore`` reads LOCAL to build its options, and a serial run
        # needs none of the parallel search's machinery
        import logging

        from .backends import HASH_SEED
        from .partition import Partition

        try:
            import ray
        except ImportError:
            raise InputError("explore", "--ray", "Ray is not installed: pip install 'yarnspec[ray]'") from None
        self._ray = ray
        self.count = count
        environment = {"env_vars": {"PYTHONHASHSEED": HASH_SEED}}
        self._started = not ray.is_initialized()
        said = Captured()
        if self._started:
            try:
                if address == LOCAL:
                    # one CPU per actor, so that every partition is placed even on a small machine
                    ray.init(num_cpus=max(count, os.cpu_count() or 1), runtime_env=environment, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
                else:
                    check_reachable(address)
                    with stderr_captured() as said:
                        connect(ray, address, runtime_env=environment, logging_level=logging.ERROR, log_to_driver=False)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                fault = f"cannot connect to Ray at {address}: {one_line(exc)}"
                raise InputError("explore", "--ray", fault + _token_hint(address, said.text)) from None
        remote = ray.remote(num_cpus=1)(Partition)
        self._actors: list[Any] = [
            remote.options(runtime_env=environment).remote(i, count, source, options) for i in range(count)
        ]
        ray.get([actor.own_process.remote() for actor in self._actors])

    def call(self, method: str, arguments: Sequence[tuple[Any, ...] | None]) -> list[Any]:
        """Call the actors at once and wait for every answer."""
        pending = {i: getattr(actor, method).remote(*args) for i, (actor, args) in enumerate(zip(self._actors, arguments)) if args is not None}
        answers = dict(zip(pending, self._ray.get(list(pending.values()))))
        return [answers.get(i) for i in range(self.count)]

    def exchange(self) -> list[Candidates]:
        """Each actor's outboxes go to their owners through Ray's object store, and so do the
        requests for states and the replies: the coordinator holds only references to them."""
        count, actors = self.count, self._actors
        boxes = [[actor.outbox.remote(owner) for owner in range(count)] for actor in actors]
        for owner, actor in enumerate(actors):  # an actor runs the calls of one caller in order
            actor.merge.remote(*(boxes[sender][owner] for sender in range(count)))
        asked = [[actor.request.remote(sender) if sender != owner else b"" for sender in range(count)] for owner, actor in enumerate(actors)]
        replies = [[actor.reply.remote(owner, asked[owner][sender]) if owner != sender else b"" for owner in range(count)] for sender, actor in enumerate(actors)]
        pending = [actor.receive.remote(*(replies[sender][owner] for sender in range(count))) for owner, actor in enumerate(actors)]
        answers: list[Candidates] = self._ray.get(pending)
        return answers

    def close(self, wait: bool = True) -> None:
        """Kill the actors; shut Ray down if this backend started it."""
        for actor in self._actors:
            try:
                self._ray.kill(actor)
            except Exception:  # noqa: BLE001 - an actor already gone is what we want
                pass
        self._actors = []
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
            self._started = False


def ray_cluster(address: str = LOCAL) -> Any:
    """A backend factory for :func:`yarnspec.checks.explore.parallel.explore_partitioned`."""

    def start(count: int, source: ModelSource, options: SearchOptions) -> RayBackend:
        return RayBackend(count, source, options, address)

    return start
