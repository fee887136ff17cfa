"""Setting up the real-Spark adapter without the network or the real jars: version checks,
extraction of ``deps/jars`` from a source distribution, the compile cache and its key, and the
one-line errors (no JDK, no jars, a failed download, a failed compilation)."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks import cli
from yarnspec.checks.validate.spark import adapter
from yarnspec.impl.errors import InputError


def _sdist(path: Path, version: str, jars: dict[str, bytes]) -> Path:
    """A fake ``pyspark-VERSION.tar.gz`` holding the given members under ``pyspark-VERSION/``."""
    with tarfile.open(path / f"pyspark-{version}.tar.gz", "w:gz") as archive:
        for name, data in jars.items():
            info = tarfile.TarInfo(f"pyspark-{version}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path / f"pyspark-{version}.tar.gz"


def _pip_serving(sdist: Path | None, calls: list[list[str]]) -> Any:
    """A stand-in for ``subprocess.run`` that plays ``pip download``: it copies ``sdist`` into
    the ``-d`` folder (or downloads nothing)."""

    def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        calls.append(command)
        if sdist is None:
            return subprocess.CompletedProcess(
                command, 1, "", "ERROR: No matching distribution found for pyspark==9.9.9"
            )
        target = Path(command[command.index("-d") + 1])
        (target / sdist.name).write_bytes(sdist.read_bytes())
        return subprocess.CompletedProcess(command, 0, "", "")

    return run


def test_fetch_extracts_only_the_top_level_jars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sdist = _sdist(
        tmp_path,
        "9.9.9",
        {
            "deps/jars/spark-core_2.13-9.9.9.jar": b"core",
            "deps/jars/scala-library-2.13.16.jar": b"lib",
            "deps/jars/connect-repl/ammonite.jar": b"repl",
            "python/pyspark/__init__.py": b"",
        },
    )
    calls: list[list[str]] = []
    monkeypatch.setattr(adapter.subprocess, "run", _pip_serving(sdist, calls))
    cache = tmp_path / "cache"
    jars = adapter.fetch_jars("9.9.9", cache, log=lambda _: None)
    assert sorted(p.name for p in jars.iterdir()) == ["scala-library-2.13.16.jar", "spark-core_2.13-9.9.9.jar"]
    assert (jars / "spark-core_2.13-9.9.9.jar").read_bytes() == b"core"
    assert "pyspark==9.9.9" in calls[0] and "--no-binary" in calls[0]
    # the source distribution itself is not kept
    assert not list(cache.rglob("*.tar.gz"))
    # a second fetch finds the jars and does not call pip
    adapter.fetch_jars("9.9.9", cache, log=lambda _: None)
    assert len(calls) == 1


def test_a_failed_download_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adapter.subprocess, "run", _pip_serving(None, []))
    with pytest.raises(InputError) as raised:
        adapter.fetch_jars("9.9.9", tmp_path, log=lambda _: None)
    assert str(raised.value) == (
        "spark:9.9.9: download: pip could not download pyspark==9.9.9: ERROR: No matching distribution found for pyspark==9.9.9"
    )


def test_a_distribution_without_spark_core_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sdist = _sdist(tmp_path, "9.9.9", {"deps/jars/spark-core_2.12-9.9.9.jar": b"core"})
    monkeypatch.setattr(adapter.subprocess, "run", _pip_serving(sdist, []))
    with pytest.raises(InputError, match="has no Scala 2.13 spark-core jar"):
        adapter.fetch_jars("9.9.9", tmp_path / "cache", log=lambda _: None)


@pytest.mark.parametrize("version", ["4", "4.0", "latest", "4.0.1; rm -rf /", ""])
def test_a_malformed_version_is_refused(version: str, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="expected a release such as 4.0.1"):
        adapter.spark_process_command(version, tmp_path)


def test_the_cli_reports_a_bad_version_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["spark-fetch", "4.x"]) == 2
    err = capsys.readouterr().err
    assert err == "yarnspec: error: spark:4.x: version: expected a release such as 4.0.1, found '4.x'\n"


def _fake_jars(cache: Path, with_compiler: bool = True) -> None:
    jars = cache / "jars"
    jars.mkdir(parents=True)
    (jars / "spark-core_2.13-9.9.9.jar").write_bytes(b"")
    if with_compiler:
        (jars / "scala-compiler-2.13.16.jar").write_bytes(b"")


def test_no_java_is_one_line_naming_the_jdk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_jars(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(InputError) as raised:
        adapter.compile_adapter("9.9.9", tmp_path, log=lambda _: None)
    assert str(raised.value).startswith("spark:9.9.9: jdk: no 'java' on PATH; install a JDK 17")


def test_compiling_without_jars_says_how_to_fetch(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no jars in .*; run: yarnspec spark-fetch 9.9.9"):
        adapter.compile_adapter("9.9.9", tmp_path, log=lambda _: None)


def test_jars_without_the_scala_2_13_compiler_are_refused(tmp_path: Path) -> None:
    _fake_jars(tmp_path, with_compiler=False)
    with pytest.raises(InputError, match="no Scala 2.13 compiler jar"):
        adapter.compile_adapter("9.9.9", tmp_path, log=lambda _: None)


def test_a_failed_compilation_is_one_line_and_leaves_no_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_jars(tmp_path)

    def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(
            command, 1, "", "SparkAdapter.scala:12: error: not found: type Nope\n1 error\n"
        )

    monkeypatch.setattr(adapter.subprocess, "run", run)
    monkeypatch.setattr(adapter, "_java", lambda install: "java")
    with pytest.raises(InputError) as raised:
        adapter.compile_adapter("9.9.9", tmp_path, log=lambda _: None)
    assert str(raised.value) == (
        "spark:9.9.9: compile: the adapter does not compile against these jars: SparkAdapter.scala:12: error: not found: type Nope"
    )
    assert not list(tmp_path.glob("adapter-*"))


def test_the_classes_are_cached_by_a_hash_of_the_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = tmp_path / "jvm"
    sources.mkdir()
    (sources / "A.scala").write_text("object A", encoding="utf-8")
    monkeypatch.setattr(adapter, "JVM_SOURCES", sources)
    first = adapter.source_hash()
    (sources / "notes.txt").write_text("not a source", encoding="utf-8")
    assert adapter.source_hash() == first
    (sources / "A.scala").write_text("object A {}", encoding="utf-8")
    assert adapter.source_hash() != first
    cache = tmp_path / "cache"
    _fake_jars(cache)
    compiled: list[list[str]] = []

    def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        compiled.append(command)
        Path(command[command.index("-d") + 1], "A.class").write_bytes(b"")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(adapter.subprocess, "run", run)
    monkeypatch.setattr(adapter, "_java", lambda install: "java")
    old = cache / "adapter-0000000000000000"
    old.mkdir()
    classes = adapter.compile_adapter("9.9.9", cache, log=lambda _: None)
    assert classes.name == f"adapter-{adapter.source_hash()}" and (classes / "A.class").exists()
    assert not old.exists(), "classes of older sources are removed"
    assert adapter.compile_adapter("9.9.9", cache, log=lambda _: None) == classes
    assert len(compiled) == 1, "a second use compiles nothing"
    command = adapter.spark_process_command("9.9.9", cache)
    assert command[-1] == adapter.MAIN_CLASS
    assert command[command.index("-cp") + 1].split(":") == [str(classes), str(cache / "jars" / "*")]


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(adapter.CACHE_ENV, str(tmp_path))
    assert adapter.default_cache_dir("4.0.1") == tmp_path / "4.0.1"
    monkeypatch.delenv(adapter.CACHE_ENV)
    assert adapter.default_cache_dir("4.0.1") == Path.home() / ".cache" / "yarnspec" / "spark" / "4.0.1"


def test_spark_fetch_prints_where_jars_and_adapter_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_jars(tmp_path)

    def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(adapter.subprocess, "run", run)
    monkeypatch.setattr(adapter, "_java", lambda install: "/usr/bin/java")
    assert cli.main(["spark-fetch", "9.9.9", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    classes = tmp_path / f"adapter-{adapter.source_hash()}"
    assert out[0].startswith(f"jars:    {tmp_path / 'jars'} (")
    assert out[1].startswith(f"adapter: {classes} (")
    assert (
        out[2]
        == f"command: /usr/bin/java -Xss8m -XX:+UseSerialGC -cp {classes}:{tmp_path / 'jars' / '*'} {adapter.MAIN_CLASS}"
    )
