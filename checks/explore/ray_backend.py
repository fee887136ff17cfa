"""The partitions of a parallel search as Ray actors (``yarnspec explore --ray [ADDRESS]``).

Each partition is one actor (:class:`~.partition.SearchPartition` made remote), so Ray places them
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
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from yarnspec.checks.explore.ray_connect import (
    Captured,
    check_reachable,
    connect,
    one_line,
    stderr_captured,
    token_hint,
)
from yarnspec.impl.errors import InputError

if TYPE_CHECKING:
    from yarnspec.checks.explore.model_source import ModelSource
    from yarnspec.checks.explore.partition import ReceivedStates, SearchOptions

#: The address meaning "start a local Ray instance".
LOCAL = "local"


class RayBackend:
    """``count`` partitions as Ray actors on the cluster at ``address``."""

    def __init__(self, count: int, source: ModelSource, options: SearchOptions, address: str = LOCAL) -> None:
        # imported here: ``yarnspec explore`` reads LOCAL to build its options, and a serial run
        # needs none of the parallel search's machinery
        import logging

        from yarnspec.checks.explore.backends import HASH_SEED
        from yarnspec.checks.explore.partition import SearchPartition

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
                    ray.init(
                        num_cpus=max(count, os.cpu_count() or 1),
                        runtime_env=environment,
                        include_dashboard=False,
                        logging_level=logging.ERROR,
                        log_to_driver=False,
                    )
                else:
                    check_reachable(address)
                    with stderr_captured() as said:
                        connect(ray, address, runtime_env=environment, logging_level=logging.ERROR, log_to_driver=False)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                fault = f"cannot connect to Ray at {address}: {one_line(exc)}"
                raise InputError("explore", "--ray", fault + token_hint(address, said.text)) from None
        remote = ray.remote(num_cpus=1)(SearchPartition)
        self._actors: list[Any] = [
            remote.options(runtime_env=environment).remote(i, count, source, options) for i in range(count)
        ]
        ray.get([actor.own_process.remote() for actor in self._actors])

    def call(self, method: str, arguments: Sequence[tuple[Any, ...] | None]) -> list[Any]:
        """Call the actors at once and wait for every answer."""
        pending = {
            i: getattr(actor, method).remote(*args)
            for i, (actor, args) in enumerate(zip(self._actors, arguments))
            if args is not None
        }
        answers = dict(zip(pending, self._ray.get(list(pending.values()))))
        return [answers.get(i) for i in range(self.count)]

    def exchange(self) -> list[ReceivedStates]:
        """Each actor's outboxes go to their owners through Ray's object store, and so do the
        requests for states and the replies: the coordinator holds only references to them."""
        count, actors = self.count, self._actors
        boxes = [[actor.outbox.remote(owner) for owner in range(count)] for actor in actors]
        for owner, actor in enumerate(actors):  # an actor runs the calls of one caller in order
            actor.merge.remote(*(boxes[sender][owner] for sender in range(count)))
        asked = [
            [actor.request.remote(sender) if sender != owner else b"" for sender in range(count)]
            for owner, actor in enumerate(actors)
        ]
        replies = [
            [actor.reply.remote(owner, asked[owner][sender]) if owner != sender else b"" for owner in range(count)]
            for sender, actor in enumerate(actors)
        ]
        pending = [
            actor.receive.remote(*(replies[sender][owner] for sender in range(count)))
            for owner, actor in enumerate(actors)
        ]
        answers: list[ReceivedStates] = self._ray.get(pending)
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
