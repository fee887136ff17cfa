"""``--ray ADDRESS`` where no Ray head answers: one line at once, not Ray's minutes of retries."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from yarnspec.checks.explore.ray_connect import CLIENT_ATTEMPTS, check_reachable, connect, one_line
from yarnspec.impl.errors import InputError


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def open_port() -> Iterator[int]:
    """A local port something listens on."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_an_address_where_nothing_listens_is_refused(closed_port: int, scheme: str) -> None:
    address = f"{scheme}127.0.0.1:{closed_port}"
    with pytest.raises(
        InputError, match=f"cannot connect to Ray at {address}: 127.0.0.1:{closed_port}: Connection refused"
    ):
        check_reachable(address)


def test_an_unknown_host_is_refused() -> None:
    with pytest.raises(
        InputError, match="cannot connect to Ray at no-such-host.invalid:6379: no-such-host.invalid:6379"
    ):
        check_reachable("no-such-host.invalid:6379")


def test_an_address_where_something_listens_passes(open_port: int) -> None:
    check_reachable(f"127.0.0.1:{open_port}")
    check_reachable(f"ray://127.0.0.1:{open_port}")


@pytest.mark.parametrize("address", ["auto", "local", "head-without-port", "host:not-a-port"])
def test_other_forms_are_left_to_ray(address: str) -> None:
    check_reachable(address)  # no connection is tried: Ray reads these itself


def test_the_command_fails_in_one_line_instead_of_hanging(closed_port: int) -> None:
    """Without the check, Ray retried for over 100 s here (the run was killed): a hang shows as
    the subprocess's timeout."""
    command = [
        sys.executable,
        "-m",
        "yarnspec.checks.cli",
        "explore",
        "no-leak",
        "--ray",
        f"127.0.0.1:{closed_port}",
        "--workers",
        "2",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and f"--ray: cannot connect to Ray at 127.0.0.1:{closed_port}" in done.stderr


class _FlakyRay:
    """A stand-in for the ``ray`` module whose ``init`` fails with the given errors first."""

    def __init__(self, *failures: Exception) -> None:
        self.failures = list(failures)
        self.calls: list[str] = []
        self.initialized = False
        self.shutdowns = 0

    def init(self, address: str, **options: object) -> None:
        self.calls.append(address)
        if self.failures:
            self.initialized = True  # a failed attempt may leave Ray half set up
            raise self.failures.pop(0)
        self.initialized = True

    def is_initialized(self) -> bool:
        return self.initialized

    def shutdown(self) -> None:
        self.shutdowns += 1
        self.initialized = False


DIED = ConnectionAbortedError(
    "Initialization failure from server:\nTraceback (most recent call last):\nRuntimeError: Starting Ray client server failed"
)


def test_ray_client_is_tried_again_when_its_server_died_as_it_started() -> None:
    ray = _FlakyRay(DIED, DIED)
    connect(ray, "ray://head:10001", log_to_driver=False)
    assert ray.calls == ["ray://head:10001"] * 3 and ray.shutdowns == 2 and ray.initialized


def test_ray_client_gives_up_after_its_attempts() -> None:
    ray = _FlakyRay(*[DIED] * CLIENT_ATTEMPTS)
    with pytest.raises(ConnectionAbortedError):
        connect(ray, "ray://head:10001")
    assert len(ray.calls) == CLIENT_ATTEMPTS


@pytest.mark.parametrize(
    "address, failure",
    [
        ("head:6379", DIED),  # only Ray Client's proxy forks a server per client
        ("ray://head:10001", ConnectionError("ray client connection timeout")),
    ],
)
def test_other_failures_are_not_tried_again(address: str, failure: Exception) -> None:
    ray = _FlakyRay(failure)
    with pytest.raises(ConnectionError):
        connect(ray, address)
    assert ray.calls == [address]


@pytest.mark.parametrize(
    "message, summary",
    [
        ("Initialization failure from server:\nTraceback (most recent call last):\n  File x\nRuntimeError: it died\n",
         "Initialization failure from server: RuntimeError: it died"),
        ("ray client connection timeout", "ray client connection timeout"),
        ("first line\nsecond line", "first line"),
        ("", "ConnectionError"),
    ],
)  # fmt: skip
def test_an_error_is_summed_up_on_one_line(message: str, summary: str) -> None:
    assert one_line(ConnectionError(message)) == summary
