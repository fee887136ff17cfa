"""``--ray ADDRESS`` against a real Ray cluster started as docs/exploring-at-scale.md says
(``ray start --head``), with token authentication on (the default of Ray 2.59 and later for a
local cluster, set here explicitly): ``auto``, ``host:port`` and Ray Client's ``ray://``
give the one-worker figures; an address without the token is one line with what to set."""

from __future__ import annotations

import json
import os
import random
import secrets
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

RAY = str(Path(sys.executable).with_name("ray"))
RUN = ["explore", "async-double-commit", "--variant", "yarn-8127", "--max-states", "800", "--json"]


#: Where the fixture's ports are drawn from: below Linux's ephemeral range (32768 and up), from
#: which Ray's own components take their "random" ports once the head starts, and above the
#: ports Ray keeps for its workers (10002-19999).
PORTS = range(20000, 32000)


def _free_port(taken: set[int]) -> int:
    """A port of :data:`PORTS` that nothing listens on now (and not in ``taken``)."""
    chooser = random.Random()
    while True:
        port = chooser.choice(PORTS)
        if port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("0.0.0.0", port))
            except OSError:
                continue
        taken.add(port)
        return port


def _yarnspec(*arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "yarnspec.checks.cli", *RUN, *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)


def _figures(done: subprocess.CompletedProcess[str]) -> tuple[object, ...]:
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    return tuple(document[k] for k in ("distinct_states", "transitions", "depth", "verdict"))


@dataclass(frozen=True)
class Cluster:
    """A running one-machine cluster: its GCS and Ray Client addresses, and the environment of
    a client without its token and of one with it."""

    gcs: str
    client: str
    plain: dict[str, str]
    token: dict[str, str]


@pytest.fixture(scope="module")
def head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A one-machine Ray cluster with token authentication (a token file of its own, so the
    user's ``~/.ray`` is neither read nor written)."""
    taken: set[int] = set()
    gcs, client = _free_port(taken), _free_port(taken)
    secret = tmp_path_factory.mktemp("ray-token") / "auth_token"
    secret.write_text(secrets.token_hex(32))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    token = env | {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(secret)}
    start = [RAY, "start", "--head", f"--port={gcs}", f"--ray-client-server-port={client}", "--num-cpus=2",
             "--include-dashboard=false", "--disable-usage-stats"]  # fmt: skip
    subprocess.run(start, env=token, check=True, capture_output=True, timeout=180)
    try:
        yield Cluster(f"127.0.0.1:{gcs}", f"ray://127.0.0.1:{client}", env, token)
    finally:
        subprocess.run([RAY, "stop", "--force"], env=env, capture_output=True, timeout=180)


def test_every_address_form_gives_the_one_worker_figures(head: Cluster) -> None:
    one = _figures(_yarnspec(env=head.token))
    for address in ("auto", head.gcs, head.client):
        assert _figures(_yarnspec("--ray", address, "--workers", "2", env=head.token)) == one, address


@pytest.mark.parametrize("place", ["gcs", "client"])
def test_without_the_token_the_refusal_is_one_line_saying_what_to_set(head: Cluster, place: str) -> None:
    address = getattr(head, place)
    done = _yarnspec("--ray", address, "--workers", "2", env=head.plain)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr  # Ray's retries, logged line after line, are held back
    assert f"--ray: cannot connect to Ray at {address}" in done.stderr
    assert "RAY_AUTH_MODE=token" in done.stderr and "ray get-auth-token" in done.stderr
