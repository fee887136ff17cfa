"""The real Apache Spark as an implementation to validate: fetch its jars, compile yarnspec's
adapter against them, and give the command line that starts it.

PyPI's ``pyspark`` source distribution carries Spark's jars (``deps/jars/``: ``spark-core``,
``spark-yarn``, the Scala 2.13 library and compiler, and their dependencies). The first use
downloads it with ``pip download --no-deps --no-binary :all: pyspark==VERSION``, keeps only the
jars, and compiles the adapter (``jvm/*.scala``, Scala, with the Scala compiler from those jars)
into a folder named by a hash of its sources. Everything lives in a cache folder outside the
repository: ``~/.cache/yarnspec/spark/VERSION`` (``$YARNSPEC_SPARK_CACHE/VERSION`` when that is
set). Nothing here is ever committed.

The adapter speaks yarnspec's process protocol on stdin/stdout (contracts ``spark-placement``
and ``spark-dispatch``, docs/spark-validation.md). Every failure to set it up (no JDK, a
version with no such release, a download or a compilation that fails) is an
:class:`~yarnspec.impl.errors.InputError` with one line that says what to do.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from yarnspec.impl.errors import InputError

#: The release the adapter is built and tested against.
DEFAULT_VERSION = "4.0.1"
#: The adapter's sources: Scala files and the logging setup copied next to the classes.
JVM_SOURCES = Path(__file__).resolve().parent / "jvm"
MAIN_CLASS = "org.apache.spark.scheduler.SparkAdapter"
CACHE_ENV = "YARNSPEC_SPARK_CACHE"
#: A jar every usable Spark distribution has; its presence means the jars were extracted.
_MARKER_JAR = re.compile(r"spark-core_2\.13-.*\.jar")
_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
_SCALA_COMPILER = re.compile(r"scala-compiler-2\.13\.[0-9]+\.jar")

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _source(version: str) -> str:
    return f"spark:{version}"


def default_cache_dir(version: str) -> Path:
    """``$YARNSPEC_SPARK_CACHE/VERSION``, else ``~/.cache/yarnspec/spark/VERSION``."""
    root = os.environ.get(CACHE_ENV)
    base = Path(root) if root else Path.home() / ".cache" / "yarnspec" / "spark"
    return base / version


@dataclass(frozen=True)
class SparkInstall:
    """Where one Spark version's jars and compiled adapter live."""

    version: str
    cache_dir: Path

    @classmethod
    def of(cls, version: str, cache_dir: Path | None = None) -> SparkInstall:
        """Check the version's form and settle the cache folder."""
        if not _VERSION.fullmatch(version):
            raise InputError(
                _source(version), "version", f"expected a release such as {DEFAULT_VERSION}, found {version!r}"
            )
        return cls(version, Path(cache_dir) if cache_dir is not None else default_cache_dir(version))

    @property
    def jars_dir(self) -> Path:
        """The extracted ``deps/jars`` folder."""
        return self.cache_dir / "jars"

    def has_jars(self) -> bool:
        """Whether the jars are already extracted."""
        return self.jars_dir.is_dir() and any(_MARKER_JAR.fullmatch(p.name) for p in self.jars_dir.iterdir())

    @property
    def classes_dir(self) -> Path:
        """The compiled adapter for the current sources (a new folder whenever they change)."""
        return self.cache_dir / f"adapter-{source_hash()}"


def source_hash() -> str:
    """A hash of the adapter's sources: the cache key of the compiled classes."""
    digest = hashlib.sha256()
    for path in sorted(JVM_SOURCES.iterdir()):
        if path.suffix in (".scala", ".properties"):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _java(install: SparkInstall) -> str:
    java = shutil.which("java")
    if java is None:
        raise InputError(
            _source(install.version),
            "jdk",
            "no 'java' on PATH; install a JDK 17 (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless)",
        )
    return java


def fetch_jars(version: str, cache_dir: Path | None = None, log: Log = _stderr) -> Path:
    """Download ``pyspark==VERSION``'s source distribution with pip and extract its jars into
    the cache (a no-op when they are there); returns the jars folder."""
    install = SparkInstall.of(version, cache_dir)
    if install.has_jars():
        return install.jars_dir
    install.cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=install.cache_dir, prefix="download-") as scratch:
        log(f"downloading pyspark=={version} from PyPI (about 430 MB) into {install.cache_dir}")
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            f"pyspark=={version}",
            "-d",
            scratch,
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        sdists = sorted(Path(scratch).glob("pyspark-*.tar.gz"))
        if not sdists:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise InputError(_source(version), "download", f"pip could not download pyspark=={version}: {last}")
        log(f"extracting deps/jars from {sdists[0].name}")
        _extract_jars(sdists[0], Path(scratch) / "jars", install)
        if install.jars_dir.exists():
            shutil.rmtree(install.jars_dir)
        (Path(scratch) / "jars").rename(install.jars_dir)
    if not install.has_jars():
        raise InputError(_source(version), "jars", f"pyspark=={version} has no Scala 2.13 spark-core jar in deps/jars")
    return install.jars_dir


def _extract_jars(sdist: Path, target: Path, install: SparkInstall) -> None:
    """Extract the jar files directly under ``deps/jars/`` (not its sub-folders)."""
    target.mkdir()
    with tarfile.open(sdist, "r:gz") as archive:
        for member in archive:
            parts = member.name.split("/")
            if member.isfile() and parts[-3:-1] == ["deps", "jars"] and parts[-1].endswith(".jar"):
                extracted = archive.extractfile(member)
                if extracted is None:
                    raise InputError(_source(install.version), "jars", f"cannot read {member.name} in {sdist.name}")
                with extracted, open(target / parts[-1], "wb") as out:
                    shutil.copyfileobj(extracted, out)


def compile_adapter(version: str, cache_dir: Path | None = None, log: Log = _stderr) -> Path:
    """Compile the adapter's Scala sources against the version's jars (once per source hash);
    returns the classes folder. The jars must be there (:func:`fetch_jars`)."""
    install = SparkInstall.of(version, cache_dir)
    if install.classes_dir.is_dir():
        return install.classes_dir
    if not install.has_jars():
        raise InputError(
            _source(version), "jars", f"no jars in {install.jars_dir}; run: yarnspec spark-fetch {version}"
        )
    java = _java(install)
    jars = sorted(install.jars_dir.glob("*.jar"))
    compiler = [j for j in jars if _SCALA_COMPILER.fullmatch(j.name)]
    if not compiler:
        raise InputError(
            _source(version),
            "jars",
            f"{install.jars_dir} has no Scala 2.13 compiler jar (the adapter needs a Scala 2.13 build of Spark, 4.x)",
        )
    scala_jars = [j for j in jars if j.name.startswith(("scala-compiler-", "scala-library-", "scala-reflect-"))]
    log(f"compiling the Spark adapter into {install.classes_dir}")
    with tempfile.TemporaryDirectory(dir=install.cache_dir, prefix="compile-") as scratch:
        out = Path(scratch) / "classes"
        out.mkdir()
        sources = sorted(str(p) for p in JVM_SOURCES.glob("*.scala"))
        command = [
            java,
            "-Xss8m",
            "-cp",
            os.pathsep.join(map(str, scala_jars)),
            "scala.tools.nsc.Main",
            "-nowarn",
            "-classpath",
            os.pathsep.join(map(str, jars)),
            "-d",
            str(out),
            *sources,
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            errors = (
                [line for line in done.stderr.splitlines() if "error" in line]
                or done.stderr.splitlines()
                or ["no output"]
            )
            raise InputError(
                _source(version), "compile", f"the adapter does not compile against these jars: {errors[0].strip()}"
            )
        for resource in JVM_SOURCES.glob("*.properties"):
            shutil.copy(resource, out / resource.name)
        if not install.classes_dir.exists():
            out.rename(install.classes_dir)
    for stale in install.cache_dir.glob("adapter-*"):
        if stale != install.classes_dir:
            shutil.rmtree(stale, ignore_errors=True)
    return install.classes_dir


def prepare(version: str, cache_dir: Path | None = None, log: Log = _stderr) -> SparkInstall:
    """Fetch the jars and compile the adapter if needed; returns where they are."""
    fetch_jars(version, cache_dir, log)
    compile_adapter(version, cache_dir, log)
    return SparkInstall.of(version, cache_dir)


def spark_process_command(version: str, cache_dir: Path | None = None) -> list[str]:
    """The command line of the adapter for Spark ``version`` (fetching the jars and compiling
    the adapter at first use): a JVM that speaks yarnspec's process protocol on stdin/stdout."""
    install = prepare(version, cache_dir)
    classpath = os.pathsep.join([str(install.classes_dir), str(install.jars_dir / "*")])
    return [_java(install), "-Xss8m", "-XX:+UseSerialGC", "-cp", classpath, MAIN_CLASS]


@dataclass(frozen=True)
class FetchReport:
    """What ``yarnspec spark-fetch`` did and how long each part took."""

    install: SparkInstall
    fetch_seconds: float
    compile_seconds: float


def fetch_and_compile(version: str, cache_dir: Path | None = None, log: Log = _stderr) -> FetchReport:
    """:func:`prepare`, timed."""
    start = time.monotonic()
    fetch_jars(version, cache_dir, log)
    fetched = time.monotonic()
    compile_adapter(version, cache_dir, log)
    return FetchReport(SparkInstall.of(version, cache_dir), fetched - start, time.monotonic() - fetched)
