"""Bad input in the formats of issue 31, one site at a time: world files, plain and REST
snapshots, ``mockrm`` cases, command-line numbers, a trace whose kind was edited, and Hadoop's
hexadecimal integers. Each test is the regression test of a traceback, a hang or a wrong
acceptance the issue's campaign found: one line naming the file (or option), the place and
the fault, exit 2 (a FAIL line for a case), or the answer Hadoop gives."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.cli import build_parser, main
from yarnspec.checks.commands.number_options import Seconds, WholeNumber, seconds_argument
from yarnspec.impl.config.getters import get_int, get_long
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import check_document, parse_toml

from .format_fuzz import CLUSTER, EXAMPLES, MOCKRM_CASES

WORLD = (EXAMPLES / "worlds" / "starvation-two-workers.toml").read_text(encoding="utf-8")
PREEMPT = [
    "preempt",
    "--config",
    str(CLUSTER / "capacity-scheduler.xml"),
    "--yarn-site",
    str(CLUSTER / "yarn-site.xml"),
    "--snapshot",
]
SIMPLE_CASE = MOCKRM_CASES / "TestCapacitySchedulerLazyPreemption" / "testSimplePreemption.json"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``yarnspec argv`` in-process: the status (argparse's exit too), stdout, stderr."""
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return status, out, err


def one_error(argv: list[str], capsys: pytest.CaptureFixture[str], *fragments: str) -> str:
    """Run ``argv``; it must end in one error line holding every fragment, exit 2."""
    status, _, err = run(argv, capsys)
    assert status == 2 and err.count("\n") == 1 and err.startswith("yarnspec: error: "), err
    for fragment in fragments:
        assert fragment in err, err
    return err


# -- world files ------------------------------------------------------------------------------


def world(tmp_path: Path, text: str, name: str = "w.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "edit, place, fault",
    [
        (lambda t: "x = " + "[" * 3000 + "]" * 3000 + "\n" + t, "", "nested deeper than 100 levels"),
        (lambda t: "x = " + "9" * 5000 + "\n" + t, "", "an integer literal too long to read"),
        (
            lambda t: t.replace("memory = 4\n", "memory = 4\ncount = 9223372036854775808\n", 1),
            "$.nodes[0].count",
            "outside the model's range",
        ),
        (
            lambda t: t.replace("memory = 4\n", "memory = 4\ncount = 9223372036854775807\n", 1),
            "nodes",
            "9,223,372,036,854,775,808 nodes",
        ),
        (
            lambda t: t.replace("[environment]", _apps(2000) + "[environment]"),
            "apps",
            "2,001 applications, more than the limit of 64",
        ),
        (
            lambda t: t.replace("max_clock_ms = 1000", "max_clock_ms = 1000000000000"),
            "bounds.max_clock_ms",
            "clock steps",
        ),
        (
            lambda t: t.replace("bounds = { max_containers = 3 }", "bounds = { max_containers = 1000000000 }"),
            "variants.reserved-pickup-two-workers.bounds.max_containers",
            "[limits] max_containers",
        ),
        (
            lambda t: t.replace("memory = 4\n", "memory = 9223372036854775807\n", 1),
            "nodes[0].memory",
            "beyond the model's range (a Java long",
        ),
    ],
    ids=[
        "deep",
        "huge-literal",
        "count-2^63",
        "count-2^63-1",
        "2000-apps",
        "clock-steps",
        "variant-bounds",
        "memory-overflow",
    ],
)
def test_a_world_beyond_the_limits_is_one_line(
    edit: Any, place: str, fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = world(tmp_path, edit(WORLD))
    one_error(
        ["explore", "--world", str(path), "--max-depth", "1"], capsys, f"{path}: {place}" if place else str(path), fault
    )


def _apps(count: int) -> str:
    return "".join(f'[[apps]]\nname = "x{i}"\nqueue = "a"\nam = {{ memory = 1, vcores = 1 }}\n\n' for i in range(count))


def test_a_world_that_raises_its_limit_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    too_many = WORLD.replace("[environment]", _apps(64) + "[environment]")
    one_error(["explore", "--world", str(world(tmp_path, too_many)), "--max-depth", "0"], capsys, "65 applications")
    raised = too_many.replace("[environment]", "[limits]\napps = 65\n\n[environment]")
    status, out, err = run(
        ["explore", "--world", str(world(tmp_path, raised, "raised.toml")), "--max-depth", "0"], capsys
    )
    assert status in (0, 1, 3, 4) and "error" not in err, err


@pytest.mark.parametrize("kind", ["fifo", "dev-zero-link", "dev-null"])
def test_a_special_file_as_world_snapshot_or_case_is_refused_at_once(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"special-{kind}"
    if kind == "fifo":
        os.mkfifo(path)
        fault = "is not a regular file (a named pipe)"
    else:
        os.symlink("/dev/zero" if kind == "dev-zero-link" else "/dev/null", path)
        fault = "is not a regular file (a character device)"
    one_error(["explore", "--world", str(path)], capsys, str(path), fault)
    one_error([*PREEMPT, str(path)], capsys, str(path), fault)
    one_error(["conform", str(path)], capsys, str(path), fault)


def test_toml_integers_are_java_longs_whatever_pythons_digit_limit() -> None:
    with pytest.raises(InputError, match="integer literal too long"):
        parse_toml("x = " + "1" * 4301, "t.toml")
    with pytest.raises(InputError, match=r"\$\.a\.b\[1\]: the integer -9223372036854775809"):
        parse_toml("a = { b = [1, -9223372036854775809] }", "t.toml")
    assert parse_toml("a = -9223372036854775808", "t.toml") == {"a": -(2**63)}


def test_the_document_check_names_the_first_fault_and_passes_the_edges() -> None:
    check_document({"a": [2**63 - 1, -(2**63)], "b": True}, "s")
    with pytest.raises(InputError, match=r"s: \$\.a\[2\]: the integer of about 31 digits"):
        check_document({"a": [0, 1, 10**30]}, "s")


# -- snapshots --------------------------------------------------------------------------------


def _rest() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((CLUSTER / "rest-snapshot.json").read_text(encoding="utf-8"))
    return loaded


def _write_json(tmp_path: Path, document: Any, name: str = "s.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "edit, place, fault",
    [
        (
            lambda d: d["apps"]["apps"]["app"][0].update(id=d["apps"]["apps"]["app"][0]["id"] + "\n"),
            "$.apps.apps.app[0].id",
            "expected application_<timestamp>_<sequence>",
        ),
        (
            lambda d: d["apps"]["apps"]["app"][0].update(id="application_1732500000000_\u0661"),
            "$.apps.apps.app[0].id",
            "does not match",
        ),
        (
            lambda d: next(iter(d["containers"].values()))["container"][0].update(
                containerId="container_e07_1732500000000_0001_01_000001\n"
            ),
            "containerId",
            "expected container_",
        ),
        (
            lambda d: next(iter(d["containers"].values()))["container"][0].update(
                containerId="container_e07_1732500000000_0001_01_" + "1" * 14
            ),
            "containerId",
            "as many as Hadoop's id holds",
        ),
        (
            lambda d: d["nodes"]["nodes"]["node"][0].update(availMemoryMB=10**25),
            "$.nodes.nodes.node[0].availMemoryMB",
            "outside the model's range",
        ),
    ],
    ids=["app-id-newline", "app-id-arabic-digit", "container-id-newline", "container-number-too-long", "huge-integer"],
)
def test_a_bad_rest_snapshot_is_one_line(
    edit: Any, place: str, fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _rest()
    edit(document)
    path = _write_json(tmp_path, document)
    one_error([*PREEMPT, str(path)], capsys, str(path), place, fault)


def test_huge_and_deep_json_snapshots_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.json"
    path.write_text('{"format": "yarnspec-snapshot/1", "nodes": [' + "9" * 5000 + "]}", encoding="utf-8")
    one_error([*PREEMPT, str(path)], capsys, str(path), "an integer of 5,000 digits")
    path.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    one_error([*PREEMPT, str(path)], capsys, str(path), "JSON nested deeper than 100 levels")


def test_a_snapshot_with_too_many_queues_is_refused_before_validation_and_the_limit_can_be_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_json(tmp_path, _rest())
    one_error(
        [*PREEMPT, str(path), "--snapshot-limit", "queues=3"],
        capsys,
        f"{path}: $: the snapshot holds 15 queues, more than the limit of 3",
        "--snapshot-limit queues=15",
    )
    one_error([*PREEMPT, str(path), "--snapshot-limit", "queue=3"], capsys, "--snapshot-limit: expected NAME=N")
    status, out, _ = run([*PREEMPT, str(path), "--snapshot-limit", "queues=15", "--rounds", "1"], capsys)
    assert status == 0 and "Round 1" in out


# -- mockrm cases -----------------------------------------------------------------------------


def _case(edit: Any) -> dict[str, Any]:
    case: dict[str, Any] = json.loads(SIMPLE_CASE.read_text(encoding="utf-8"))
    edit(case)
    return case


def _first(case: dict[str, Any], op: str) -> dict[str, Any]:
    step: dict[str, Any] = next(s for s in case["steps"] if s["op"] == op)
    return step


@pytest.mark.parametrize(
    "edit, fragment",
    [
        (
            lambda c: _first(c, "ask").update(containers=2**63 - 1),
            "steps[1].containers: the case asks for 9,223,372,036,854,775,807 containers in one ask",
        ),
        (
            lambda c: _first(c, "edit_schedule").update(repeat=10**9),
            "steps[7].repeat: the case asks for 10,000,000,018 model steps",
        ),
        (
            lambda c: c["nodes"].extend({"name": f"x{i}", "memory_mb": 1024, "vcores": 1} for i in range(20_000)),
            "nodes: the case asks for 20,002 nodes, more than the limit of 200",
        ),
        (
            lambda c: (
                c["nodes"].extend({"name": f"x{i}", "memory_mb": 1024, "vcores": 1} for i in range(1_000))
                or c.update(limits={"nodes": 2_000})
            ),
            "work (model steps x nodes)",
        ),
        (lambda c: c.update(limits={"nodes": "many"}), "limits.nodes: expected an integer"),
        (
            lambda c: c["conf"].update({"yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval": "1_0"}),
            "expected a whole number of milliseconds (a Java long, decimal or 0x hexadecimal), found '1_0'",
        ),
    ],
    ids=["ask-2^63-1", "repeat-10^9", "20000-nodes", "work", "limits-type", "interval-underscore"],
)
def test_an_absurd_mockrm_case_is_refused_before_it_runs(
    edit: Any, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_json(tmp_path, _case(edit), "case.json")
    status, out, _ = run(["conform", str(path)], capsys)
    assert status == 1 and f"malformed case: {path}: " in out and fragment in out, out


def test_a_mockrm_case_may_raise_its_limits_and_reads_hadoops_hexadecimal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edit(case: dict[str, Any]) -> None:  # the case plays 41 model steps on 2 nodes
        case["limits"] = {"steps": 41, "work": 82}
        case["conf"]["yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval"] = (
            "0xEA60"  # 60000, as Hadoop reads it
        )

    path = _write_json(tmp_path, _case(edit), "case.json")
    status, out, _ = run(["conform", str(path)], capsys)
    assert status == 0 and out.startswith("PASS"), out
    lowered = _case(edit)
    lowered["limits"]["work"] = 81
    path = _write_json(tmp_path, lowered, "lower.json")
    status, out, _ = run(["conform", str(path)], capsys)
    assert status == 1 and "82 node-steps of work (model steps x nodes), more than the limit of 81" in out, out


# -- command-line numbers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, option, value",
    [
        ([*PREEMPT, str(CLUSTER / "snapshot.json")], "--clock", "\u0661"),
        ([*PREEMPT, str(CLUSTER / "snapshot.json")], "--rounds", "+2"),
        ([*PREEMPT, str(CLUSTER / "snapshot.json")], "--rounds", "99999999999999999999999"),
        (["check"], "--seed", "\u0661"),
        (["check"], "--examples", "1_0"),
        (["validate", "spark-placement", "--impl", "reference"], "--seed", "\u0661"),
        (["validate", "spark-placement", "--impl", "reference"], "--timeout", "1_0"),
        (["validate", "spark-placement", "--impl", "reference"], "--timeout", "inf"),
        (["validate", "spark-placement", "--impl", "reference"], "--start-timeout", "nan"),
        (["validate", "spark-placement", "--impl", "reference"], "--start-timeout", "1e308"),
        (["validate", "spark-placement", "--impl", "reference"], "--start-timeout", "1000001"),
        (["validate", "spark-placement", "--impl", "reference"], "--examples", "+3"),
    ],
)
def test_every_numeric_option_follows_the_grammar(
    argv: list[str], option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    one_error([*argv, option, value], capsys, f"argument {option}: expected")


def test_dot_limit_takes_ascii_digits_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = EXAMPLES / "traces" / "async-double-commit-pre-8127.json"
    one_error(
        ["show", str(trace), "--dot", str(tmp_path / "g.dot"), "--dot-limit", "\u00b2"],
        capsys,
        "--dot-limit: expected a whole number, got '\u00b2'",
    )


def test_no_option_of_any_sub_command_reads_a_number_with_int_or_float() -> None:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    typed = 0
    for sub in subparsers.choices.values():
        for action in sub._actions:
            assert action.type not in (int, float), (sub.prog, action.option_strings)
            typed += isinstance(action.type, (WholeNumber, Seconds))
    assert typed >= 8  # check's, preempt's and validate's numbers


def test_the_typed_parsers_take_what_the_grammar_allows() -> None:
    assert WholeNumber(0, 10)(" 7") == 7 and WholeNumber()("-9223372036854775808") == -(2**63)
    assert Seconds()("2.5") == 2.5 and Seconds()(".5") == 0.5 and Seconds()("30") == 30.0
    for text in ("+2", "1_0", "\u0661", "1e3", "nan", "inf", "0x10", "", "-1"):
        with pytest.raises(argparse.ArgumentTypeError):
            Seconds()(text) if text in ("1e3", "nan", "inf", "-1") else WholeNumber(0)(text)
    with pytest.raises(InputError, match="expected seconds in 0..1e\\+06, got 1000001"):
        seconds_argument("1000001", "command line", "--timeout", 0, 1_000_000)


# -- Hadoop's hexadecimal integers ------------------------------------------------------------


def test_get_int_and_get_long_read_hexadecimal_as_configuration_get_hex_digits_does() -> None:
    assert get_int("0x400") == 1024 and get_long("0X400") == 1024 and get_int("-0x10") == -16
    assert get_int("0x-10") == -16  # getHexDigits leaves the sign after 0x to Integer.parseInt
    assert get_int("--0x10") is None and get_int("0x") is None and get_int("0x80000000") is None
    assert get_long("0x7fffffffffffffff") == 2**63 - 1 and get_long("0x8000000000000000") is None


def test_a_hexadecimal_long_setting_is_read_by_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = (EXAMPLES / "yarn-site.xml").read_text(encoding="utf-8")
    key = "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval</name>\n    <value>3000"
    assert key in site
    path = tmp_path / "yarn-site.xml"
    path.write_text(site.replace(key, key.replace("3000", "0x400")), encoding="utf-8")
    status, out, err = run(["config", str(EXAMPLES / "capacity-scheduler.xml"), str(path)], capsys)
    assert status == 0 and "monitoring_interval_ms: 1024  (set)" in out, err


# -- traces -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, fault",
    [
        ("deadlock", "kind is 'deadlock' but the property is 'node-used-is-sum-of-containers'"),
        ("invariant", "kind is 'invariant' but the property is 'deadlock', which only a deadlock trace names"),
    ],
)
def test_a_trace_whose_kind_was_edited_is_not_replayed_as_that_kind(
    kind: str, fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = json.loads((EXAMPLES / "traces" / "async-double-commit-pre-8127.json").read_text(encoding="utf-8"))
    trace["kind"] = kind
    if kind == "invariant":
        trace["property"] = "deadlock"
    path = _write_json(tmp_path, trace, "t.json")
    one_error(["replay", str(path)], capsys, f"{path}: kind: {fault}")


def test_a_dot_limit_below_the_traces_length_draws_the_cut_graph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the numbers family: ``--dot-limit 3`` on a 20-step trace was a KeyError."""
    trace = EXAMPLES / "traces" / "async-double-commit-pre-8127.json"
    status, _, err = run(["show", str(trace), "--dot", str(tmp_path / "g.dot"), "--dot-limit", "3"], capsys)
    assert status == 0 and "(3 states, 2 edges: cut at 3 states" in err, err
    assert (tmp_path / "g.dot").read_text(encoding="utf-8").startswith('digraph "capacity-scheduler"')


def test_a_world_or_snapshot_named_with_a_line_break_is_named_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the world family: schema faults named the file unquoted, over two lines' worth."""
    path = world(tmp_path, "x = 1\n", "new\nline.toml")
    one_error(
        ["explore", "--world", str(path)], capsys, f"{ascii(str(path))}: $: 'configuration' is a required property"
    )
    snapshot = _write_json(tmp_path, [1], "new\nline.json")
    one_error([*PREEMPT, str(snapshot)], capsys, f"{ascii(str(snapshot))}: $: a snapshot is a JSON object")
