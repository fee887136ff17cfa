"""``yarnspec config`` for CI (issue 26): stable warning ids, ``--allow`` and ``--allow-file``
(allowed warnings counted, ``--strict`` passing), and ``--diff`` comparing every setting the
model reads, showing both files' warnings and saying why it exits 1."""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yarnspec.checks import cli
from yarnspec.checks.configuration.allow_list import WARNING_IDS, AllowRule, is_allowed, parse_rule, read_allow_file
from yarnspec.checks.configuration.diff import QUEUE_SETTINGS
from yarnspec.checks.configuration.lint import all_warnings, lint
from yarnspec.impl.config.capacity import QueueConfig
from yarnspec.impl.config.hadoop_xml import format_configuration
from yarnspec.impl.config.scheduler import load_scheduler_configuration
from yarnspec.impl.config.warning import ConfigWarning
from yarnspec.impl.errors import InputError

PROJECT = Path(__file__).resolve().parents[2]
CLUSTER = PROJECT / "docs" / "examples" / "cluster"
PREFIX = "yarn.scheduler.capacity."
BASE = {PREFIX + "root.queues": "a,b", PREFIX + "root.a.capacity": "60", PREFIX + "root.b.capacity": "40"}


def write(path: Path, properties: dict[str, str]) -> Path:
    path.write_text(format_configuration(properties), encoding="utf-8")
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out + captured.err


@pytest.mark.parametrize(
    ("extra", "warning_id", "key"),
    [
        ({PREFIX + "root.accessible-node-labels": "*"}, "label-star", PREFIX + "root.accessible-node-labels"),
        ({PREFIX + "root.c.capacity": "5"}, "orphan-queue-key", PREFIX + "root.c.capacity"),
        ({PREFIX + "root.a.user-limit-facter": "2"}, "unknown-key", PREFIX + "root.a.user-limit-facter"),
        (
            {
                PREFIX + "root.a.accessible-node-labels": "gpu",
                PREFIX + "root.accessible-node-labels.gpu.capacity": "100",
                PREFIX + "root.a.accessible-node-labels.gpu.capacity": "100",
            },
            "labels-disabled",
            "yarn.node-labels.enabled",
        ),
        (
            {PREFIX + "root.a.auto-create-child-queue.enabled": "true"},
            "not-modelled",
            PREFIX + "root.a.auto-create-child-queue.enabled",
        ),
        (
            {
                "yarn.resourcemanager.scheduler.monitor.enable": "true",
                "yarn.resourcemanager.scheduler.monitor.policies": "x.Y",
            },
            "monitor-without-policy",
            "yarn.resourcemanager.scheduler.monitor.policies",
        ),
    ],
)
def test_every_warning_has_a_stable_id_and_its_key(
    tmp_path: Path, extra: dict[str, str], warning_id: str, key: str
) -> None:
    conf = load_scheduler_configuration([write(tmp_path / "capacity-scheduler.xml", {**BASE, **extra})])
    warnings = all_warnings(conf, lint(conf))
    assert [(w.id, w.key) for w in warnings] == [(warning_id, key)]
    assert all(w.id in WARNING_IDS for w in warnings)


def test_a_property_without_a_value_has_its_id(tmp_path: Path) -> None:
    path = tmp_path / "capacity-scheduler.xml"
    text = format_configuration(BASE).replace(
        "</configuration>", "<property><name>x.y</name></property></configuration>"
    )
    path.write_text(text, encoding="utf-8")
    [warning] = load_scheduler_configuration([path]).warnings
    assert isinstance(warning, ConfigWarning) and (warning.id, warning.key) == ("no-value", "x.y")


def test_ids_show_in_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "capacity-scheduler.xml", {**BASE, PREFIX + "root.accessible-node-labels": "*"})
    status, out = run(["config", str(path)], capsys)
    assert status == 0 and "  [label-star] " in out
    status, out = run(["config", str(path), "--json"], capsys)
    [warning] = json.loads(out)["warnings"]
    assert warning["id"] == "label-star" and warning["key"] == PREFIX + "root.accessible-node-labels"


def test_the_allow_list_lets_strict_pass_and_counts_what_it_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(CLUSTER / "capacity-scheduler-root-labels.xml"), str(CLUSTER / "yarn-site.xml")]
    status, out = run(["config", *files, "--strict"], capsys)
    assert status == 1 and "Exit 1 (--strict): 1 warning not allowed" in out
    status, out = run(["config", *files, "--strict", "--allow-file", str(CLUSTER / "config-allow.txt")], capsys)
    assert status == 0 and "1 warning allowed (label-star x1)" in out and "[label-star]" not in out
    status, out = run(["config", *files, "--strict", "--allow", "label-star=*.root.*", "--json"], capsys)
    document = json.loads(out)
    assert status == 0 and document["warnings"] == [] and [w["id"] for w in document["allowed"]] == ["label-star"]
    # a glob that does not match the key allows nothing
    assert run(["config", *files, "--strict", "--allow", "label-star=*.root.eng.*"], capsys)[0] == 1


@pytest.mark.parametrize(
    ("line", "fault"),
    [
        ("label-stra", "unknown warning id 'label-stra'"),
        ("label-star=", "the glob is empty"),
        ("=x", "unknown warning id ''"),
    ],
)
def test_a_bad_allow_line_is_one_error_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, fault: str
) -> None:
    allow = tmp_path / "allow.txt"
    allow.write_text(f"# known warnings\n\nlabel-star\n{line}  # a comment\n", encoding="utf-8")
    status, out = run(["config", str(CLUSTER / "capacity-scheduler.xml"), "--allow-file", str(allow)], capsys)
    assert status == 2 and out.count("\n") == 1 and f"{allow}: line 4: " in out and fault in out
    status, out = run(["config", str(CLUSTER / "capacity-scheduler.xml"), "--allow", line], capsys)
    assert status == 2 and out.count("\n") == 1 and "command line: --allow: " in out


def test_an_allow_file_skips_comments_and_blank_lines(tmp_path: Path) -> None:
    allow = tmp_path / "allow.txt"
    allow.write_text("# a\n\n  unknown-key = *.root.a.*   # typo we keep\nlabel-star\n", encoding="utf-8")
    assert read_allow_file(allow) == [AllowRule("unknown-key", "*.root.a.*"), AllowRule("label-star")]


KEYS = st.from_regex(r"[a-z.\-_]{0,30}", fullmatch=True)
GLOBS = st.from_regex(r"[a-z.*?\-_]{1,12}", fullmatch=True)


@given(
    warning_id=st.sampled_from(sorted(WARNING_IDS)), other=st.sampled_from(sorted(WARNING_IDS)), key=KEYS, glob=GLOBS
)
def test_a_rule_allows_exactly_its_id_and_the_keys_its_glob_matches(
    warning_id: str, other: str, key: str, glob: str
) -> None:
    plain = parse_rule(warning_id, "command line", "--allow")
    globbed = parse_rule(f"{warning_id}={glob}", "command line", "--allow")
    assert plain.allows(other, key) == (other == warning_id)
    assert globbed.allows(other, key) == (other == warning_id and fnmatchcase(key, glob))
    assert is_allowed([plain, globbed], other, key) == (other == warning_id)
    assert not is_allowed([], warning_id, key)
    assert parse_rule(str(globbed), "x", "y") == globbed


def test_diff_catches_a_typo_that_resets_user_limit_factor(capsys: pytest.CaptureFixture[str]) -> None:
    old, new = CLUSTER / "capacity-scheduler.xml", CLUSTER / "capacity-scheduler-ulf-typo.xml"
    status, out = run(["config", "--diff", str(old), str(new), str(CLUSTER / "yarn-site.xml")], capsys)
    assert status == 0
    assert "root.eng.batch.nightly: changed\n    user-limit-factor 2 -> 1" in out
    assert f"Warnings of NEW ({new})\n  [unknown-key] " in out and "user-limit-facter" in out
    status, out = run(
        ["config", "--diff", str(old), str(new), str(CLUSTER / "yarn-site.xml"), "--strict", "--json"], capsys
    )
    document = json.loads(out)
    assert status == 1 and document["exit_reasons"] == ["--strict and NEW has 1 warning not allowed"]
    assert [w["id"] for w in document["new_warnings"]] == ["unknown-key"]
    allow = ["--allow", "unknown-key=*.user-limit-facter"]
    status, out = run(
        ["config", "--diff", str(old), str(new), str(CLUSTER / "yarn-site.xml"), "--strict", *allow], capsys
    )
    assert status == 0 and "1 warning allowed (unknown-key x1)" in out


def test_strict_diff_of_a_file_with_itself_says_why_it_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "capacity-scheduler.xml", {**BASE, PREFIX + "root.accessible-node-labels": "*"})
    status, out = run(["config", "--diff", str(path), str(path), "--strict"], capsys)
    assert status == 1 and "No queue changes." in out
    assert out.rstrip().endswith("Exit 1: --strict and NEW has 1 warning not allowed.")
    assert f"Warnings of OLD ({path})" in out and f"Warnings of NEW ({path})" in out


@pytest.mark.parametrize(
    ("key", "old", "new", "line"),
    [
        ("minimum-user-limit-percent", "100", "50", "minimum-user-limit-percent 100 -> 50"),
        ("maximum-am-resource-percent", "0.1", "0.5", "maximum-am-resource-percent 0.1 -> 0.5"),
        ("ordering-policy", "fifo", "fair", "ordering-policy fifo -> fair"),
        ("priority", "0", "3", "priority 0 -> 3"),
        ("disable_preemption", "false", "true", "disable_preemption false -> true"),
        ("user-limit-factor", "2", "1.5", "user-limit-factor 2 -> 1.5"),
    ],
)
def test_diff_compares_each_queue_setting_the_model_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, old: str, new: str, line: str
) -> None:
    a = write(tmp_path / "a.xml", {**BASE, f"{PREFIX}root.a.{key}": old})
    b = write(tmp_path / "b.xml", {**BASE, f"{PREFIX}root.a.{key}": new})
    status, out = run(["config", "--diff", str(a), str(b)], capsys)
    assert status == 0 and f"root.a: changed\n    {line}" in out


def test_every_queue_setting_compared_is_a_field_the_reader_fills() -> None:
    names = set(QueueConfig.__dataclass_fields__)
    assert {attribute for _, attribute in QUEUE_SETTINGS} <= names


def test_diff_compares_scheduler_wide_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monitor = "yarn.resourcemanager.monitor.capacity.preemption."
    a = write(tmp_path / "a.xml", BASE)
    b = write(tmp_path / "b.xml", {**BASE, monitor + "total_preemption_per_round": "0.3",
                                   PREFIX + "resource-calculator": "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"})  # fmt: skip
    status, out = run(["config", "--diff", str(a), str(b), "--json"], capsys)
    settings = json.loads(out)["settings"]
    assert status == 0 and any(s.startswith("resource calculator ") for s in settings)
    assert "preemption total_preemption_per_round 0.1 -> 0.3" in settings


def test_a_bad_allow_id_is_refused_before_reading_anything(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError):
        parse_rule("nope", "command line", "--allow")
