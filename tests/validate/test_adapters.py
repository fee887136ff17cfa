"""Adapters: processes speaking the protocol (good, dying, misbehaving), Python targets,
entry points, ``spark:`` without the Spark adapter. Every bad adapter ends in one clear line on
stderr and exit 2, never a traceback or a hang."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest

from yarnspec.checks.validate.families import family_of
from yarnspec.checks.validate.load import SPARK_MODULE, load_adapter
from yarnspec.checks.validate.run import Options, conformance, run_phases
from yarnspec.spec.contracts import contract_named

from ..conftest import CONFORMANCE_DIR, PROJECT_ROOT
from .helpers import ADAPTERS, HERE, cli

PLACEMENT_CASE = CONFORMANCE_DIR / "spark-locality/ContainerPlacementStrategySuite/06-pending-requests-considered.json"
PYTHON = shlex.quote(sys.executable)


def _process(script: str, *args: str) -> str:
    return "process:" + " ".join([PYTHON, shlex.quote(str(ADAPTERS / script)), *args])


def test_a_stateful_contract_validates_through_a_process() -> None:
    contract = contract_named("spark-dispatch")
    adapter = load_adapter(_process("reference_process.py"), contract, timeout_s=30)
    try:
        phases = run_phases(contract, family_of("spark-dispatch"), adapter, Options(None, 10, 0))
    finally:
        adapter.close()
    assert [f.lines for p in phases for f in p.findings] == []
    assert [p.name for p in phases] == ["conformance", "differential", "model-based"]


def test_a_process_that_dies_is_restarted_for_the_next_case() -> None:
    contract = contract_named("spark-dispatch")
    adapter = load_adapter(_process("reference_process.py", "--die-after", "2"), contract, timeout_s=30)
    try:
        result = conformance(contract, family_of("spark-dispatch"), adapter, [CONFORMANCE_DIR / "spark-locality"])
    finally:
        adapter.close()
    faults = [f for f in result.findings if f.kind == "fault"]
    # every case needs more than 2 answers: each fresh process answers hello and 2 requests, then exits
    assert len(faults) == 3 and result.skipped[-1] == "stopped after 3 faulted cases"
    assert all("request 4 (" in f.lines[0] and "exited with code 0 before answering" in f.lines[0] for f in faults)


@pytest.mark.parametrize(
    "mode, at, fragment",
    [
        (
            "crash",
            "2",
            "request 2 (locality_of_requested_containers): the process exited with code 3 before answering; stderr: adapter: something broke inside",
        ),
        ("crash", "1", "request 1 (hello): the process exited with code 3 before answering"),
        ("hang", "2", "request 2 (locality_of_requested_containers): no answer within 1 s (the process hangs); killed"),
        (
            "garbage",
            "2",
            "request 2 (locality_of_requested_containers): the answer is not a JSON line: 'this is not json'",
        ),
        ("garbage", "1", "request 1 (hello): the answer is not a JSON line: 'this is not json'"),
        ("wrong-id", "2", "request 2 (locality_of_requested_containers): the answer has id 9, expected 2: "),
        (
            "wrong-schema",
            "2",
            "the output breaks the protocol schema (placement_output) at ['nodes']: 'host1' is not of type 'array'",
        ),
        ("no-contract", "0", "adapter does not implement spark-placement (it implements: nothing)"),
    ],
)
def test_a_misbehaving_process_is_one_line_and_exit_2(mode: str, at: str, fragment: str, tmp_path: Path) -> None:
    started = time.monotonic()
    status, out, err = cli(
        "validate",
        "spark-placement",
        "--impl",
        _process("misbehaving.py", mode, at),
        "--timeout",
        "1",
        "--start-timeout",
        "1",
        "--examples",
        "3",
        "--cases",
        str(PLACEMENT_CASE),
        "--out",
        str(tmp_path),
    )
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("yarnspec: adapter process:"), err
    assert fragment in lines[0]
    if at in ("0", "1"):  # it never started: no report, only the line
        assert out == ""
    assert time.monotonic() - started < 60


@pytest.mark.parametrize(
    "impl, fragment",
    [
        ("python:no_such_module_here:Thing", "cannot import module 'no_such_module_here'"),
        ("python:yarnspec.checks.validate.reference:NoSuchAdapter", "has no attribute 'NoSuchAdapter'"),
        (
            "python:yarnspec.checks.validate.reference",
            "expected python:package.module:attr or python:path/file.py:attr",
        ),
        ("python:no/such/file.py:Thing", "cannot read no/such/file.py: No such file or directory"),
        (
            "spark:4.0.1",
            "spark:4.0.1: the Spark adapter (yarnspec.checks.validate.spark.adapter) is not installed in this yarnspec",
        ),
        ("spark:", "name a Spark version, e.g. spark:4.0.1"),
        ("no-such-adapter-name", "no adapter of that name (entry points in yarnspec.adapters: "),
        ("ftp:thing", "unknown kind (use python:, process:, spark: or an entry-point name)"),
        ("process:", "empty command"),
    ],
)
def test_a_bad_impl_name_is_one_line_and_exit_2(impl: str, fragment: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # as if the Spark adapter were not installed, whether or not it is merged
    monkeypatch.setitem(sys.modules, SPARK_MODULE, None)
    status, out, err = cli("validate", "spark-placement", "--impl", impl, "--examples", "1")
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], err


def test_a_missing_command_is_one_line_and_exit_2(tmp_path: Path) -> None:
    status, _, err = cli(
        "validate",
        "spark-placement",
        "--impl",
        "process:/no/such/adapter-binary",
        "--cases",
        str(PLACEMENT_CASE),
        "--examples",
        "1",
        "--out",
        str(tmp_path),
    )
    assert status == 2
    assert (
        err.strip()
        == "yarnspec: adapter process:/no/such/adapter-binary: cannot start /no/such/adapter-binary: No such file or directory"
    )


def test_a_python_object_of_the_wrong_shape_is_a_fault(tmp_path: Path) -> None:
    status, _, err = cli(
        "validate",
        "spark-placement",
        "--impl",
        "python:yarnspec.checks.validate.reference:Dispatch",
        "--cases",
        str(PLACEMENT_CASE),
        "--examples",
        "1",
        "--out",
        str(tmp_path),
    )
    assert status == 2
    assert "Dispatch does not implement ContainerPlacementStrategy (contract spark-placement)" in err.strip()


def test_an_unknown_or_undriven_contract_is_one_line_and_exit_2() -> None:
    status, _, err = cli("validate", "no-such-contract", "--impl", "reference")
    assert status == 2 and "unknown contract 'no-such-contract' (known: spark-placement, spark-dispatch" in err


def test_an_installed_entry_point_names_an_adapter() -> None:
    status, out, _ = cli(
        "validate",
        "spark-placement",
        "--impl",
        "reference-spark-placement",
        "--examples",
        "5",
        "--cases",
        str(PLACEMENT_CASE),
    )
    assert status == 0 and "RESULT: agrees with the spec" in out


def test_another_package_registers_an_adapter_by_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = tmp_path / "my_scheduler-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-scheduler\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[yarnspec.adapters]\nmy-placement = mutants.placement:HintsSorted\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(HERE))
    status, out, _ = cli(
        "validate",
        "spark-placement",
        "--impl",
        "my-placement",
        "--examples",
        "40",
        "--cases",
        str(PLACEMENT_CASE),
        "--out",
        str(tmp_path / "out"),
    )
    assert status == 1 and "DISAGREEMENT [differential]" in out


def test_the_javascript_example_validates_through_the_same_command(tmp_path: Path) -> None:
    script = PROJECT_ROOT / "docs/examples/placement_adapter.js"
    status, out, err = cli(
        "validate", "spark-placement", "--impl", f"process:node {script}", "--examples", "200", "--out", str(tmp_path)
    )
    assert (status, err) == (0, "")
    assert "differential  200 examples: agree" in out and "RESULT: agrees with the spec" in out


def test_a_failing_spark_adapter_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    fake = types.ModuleType(SPARK_MODULE)

    def spark_process_command(version: str, cache_dir: Path | None = None) -> list[str]:
        raise RuntimeError(f"no JDK found for Spark {version}")

    fake.spark_process_command = spark_process_command  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, SPARK_MODULE, fake)
    status, out, err = cli("validate", "spark-dispatch", "--impl", "spark:4.0.1", "--examples", "1")
    assert (status, out) == (2, "")
    assert err.strip() == "yarnspec: error: --impl: spark:4.0.1: RuntimeError: no JDK found for Spark 4.0.1"
