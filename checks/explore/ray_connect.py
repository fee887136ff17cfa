"""Connecting to a Ray cluster for ``yarnspec explore --ray ADDRESS``, so that a wrong address
or a missing token is one line at once, never minutes of Ray's retries (see
docs/exploring-at-scale.md, "Ray"): :func:`check_reachable` before Ray is asked,
:func:`connect` (with Ray Client's known start-up race tried again), Ray's own logging held
back meanwhile (:func:`stderr_captured`), and what to set when the cluster wants its token
(:func:`token_hint`)."""

from __future__ import annotations

import os
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from yarnspec.impl.errors import InputError

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


def token_hint(address: str, logged: str) -> str:
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
