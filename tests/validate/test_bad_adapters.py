"""Issue 31: adapters that misbehave in every way the campaign found, each in a real
``yarnspec`` process with a subprocess timeout (a hang fails the test instead of stalling the
suite): one line on stderr, exit 2, within the ``--timeout`` asked for; an adapter's own exit
code never becomes yarnspec's; an adapter that answers nothing is not "agrees"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from .helpers import cli

YARNSPEC = [sys.executable, "-m", "yarnspec.checks.cli"]
#: An upper bound no run here should come near: a hang ends the test.
HANG_S = 60

#: The body of a process adapter for node-sorting (no conformance phase: the differential
#: phase talks to it first): MISBEHAVE(request) runs before each answer and may return a line
#: to print instead of the real answer.
ADAPTER = """
import json, os, subprocess, sys, time
STARTS = os.environ.get("STARTS")
if STARTS:
    with open(STARTS, "a") as f:
        f.write("start\\n")
def answer(request):
    if request["op"] == "hello":
        return {"id": request["id"], "output": {"name": "t", "version": "0", "contracts": ["node-sorting"]}}
    nodes = request["input"]["nodes"]
    order = [n["node_id"] for n in sorted(nodes, key=lambda n: (n["allocated_memory"], n["allocated_vcores"]))]
    return {"id": request["id"], "output": {"order": order}}
%s
for line in sys.stdin:
    request = json.loads(line)
    replaced = misbehave(request)
    print(replaced if replaced is not None else json.dumps(answer(request)), flush=True)
"""

MISBEHAVIOURS = {
    "half-line": """
def misbehave(request):
    if request["id"] == 2:
        sys.stdout.write('{"id": 2, "outp'); sys.stdout.flush(); time.sleep(100)
""",
    "closes-stdout": """
def misbehave(request):
    if request["id"] == 2:
        sys.stdout.close(); os.close(1); time.sleep(100)
""",
    "grandchild": """
def misbehave(request):
    if request["id"] == 2:
        child = subprocess.Popen(["sleep", "100"])
        with open(os.environ["CHILD"], "w") as f:
            f.write(str(child.pid))
        os._exit(0)
""",
    "hangs": """
def misbehave(request):
    if request["id"] == 2:
        time.sleep(100)
""",
    "exits-3": """
def misbehave(request):
    if request["id"] == 2:
        sys.exit(3)
""",
    "nested": """
def misbehave(request):
    if request["id"] == 2:
        return '{"id": 2, "output": {"order": %s}}' % ("[" * 50000 + "]" * 50000)
""",
    "19-digits": """
def misbehave(request):
    if request["id"] == 2:
        return '{"id": 2, "output": {"order": [], "load": 9999999999999999999}}'
""",
    "id-19-digits": """
def misbehave(request):
    if request["id"] == 2:
        return '{"id": 1234567890123456789012, "output": {"order": []}}'
""",
    "nan": """
def misbehave(request):
    if request["id"] == 2:
        return '{"id": 2, "output": {"order": [NaN]}}'
""",
    "huge-line": """
def misbehave(request):
    if request["id"] == 2:
        return '{"id": 2, "output": {"order": ["' + "x" * (9 * 1024 * 1024) + '"]}}'
""",
    "not-utf8": """
def misbehave(request):
    if request["id"] == 2:
        sys.stdout.buffer.write(b'{"id": 2, "output": {"order": ["\\xff"]}}\\n'); sys.stdout.flush(); time.sleep(100)
""",
}

EXPECTED = {
    "half-line": 'request 2 (sort_nodes): no answer within 3 s (it wrote part of a line and stopped: \'{"id": 2, "outp\'); killed',
    "closes-stdout": "request 2 (sort_nodes): the process closed its stdout before answering; killed",
    "grandchild": "request 2 (sort_nodes): the process exited with code 0 before answering",
    "hangs": "request 2 (sort_nodes): no answer within 3 s (the process hangs); killed",
    "exits-3": "request 2 (sort_nodes): the process exited with code 3 before answering",
    "nested": "request 2 (sort_nodes): the answer is refused: JSON nested deeper than 100 levels",
    "19-digits": "request 2 (sort_nodes): the answer is refused: ['output']['load']: an integer of 19 digits is beyond the model's range (a Java long, -2^63 .. 2^63-1)",
    "id-19-digits": "request 2 (sort_nodes): the answer is refused: ['id']: an integer of 22 digits is beyond the model's range",
    "nan": "request 2 (sort_nodes): the answer is refused: not accepted as JSON input: NaN is not a JSON number",
    "huge-line": "request 2 (sort_nodes): the answer is longer than the limit of 8,388,608 bytes; killed",
    "not-utf8": "request 2 (sort_nodes): the answer is not UTF-8: byte 0xff at offset 32",
}


def adapter(tmp_path: Path, misbehave: str, name: str = "adapter.py") -> Path:
    """A node-sorting process adapter with ``misbehave`` (Python source of ``misbehave``)."""
    path = tmp_path / name
    path.write_text(ADAPTER % textwrap.dedent(misbehave))
    return path


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str, float]:
    """``yarnspec ARGS`` in a process of its own: status, stdout, stderr, seconds taken."""
    started = time.monotonic()
    done = subprocess.run(
        [*YARNSPEC, *args], cwd=cwd, capture_output=True, text=True, timeout=HANG_S, env={**os.environ, **(env or {})}
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - started


@pytest.mark.parametrize("mode", sorted(MISBEHAVIOURS))
def test_a_misbehaving_process_is_one_line_exit_2_within_its_timeout(mode: str, tmp_path: Path) -> None:
    script = adapter(tmp_path, MISBEHAVIOURS[mode])
    child = tmp_path / "child.pid"
    status, _, err, seconds = run(
        [
            "validate",
            "node-sorting",
            "--impl",
            f"process:{sys.executable} {script}",
            "--timeout",
            "3",
            "--examples",
            "5",
            "--out",
            str(tmp_path / "out"),
        ],
        tmp_path,
        {"CHILD": str(child)},
    )
    lines = err.strip().splitlines()
    assert status == 2, err
    assert len(lines) == 1 and lines[0].startswith("yarnspec: adapter process:"), err
    assert EXPECTED[mode] in lines[0]
    assert "Traceback" not in err
    assert seconds < 10, f"--timeout 3 took {seconds:.1f} s"
    if mode == "grandchild":  # the child holding the pipe was killed with the adapter's group
        pid = int(child.read_text())
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.1)
        assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_fault_at_hello_is_reported_once_without_restarts(tmp_path: Path) -> None:
    script = adapter(
        tmp_path,
        """
def misbehave(request):
    if request["op"] == "hello":
        return "hello? no"
""",
    )
    starts = tmp_path / "starts"
    status, out, err, seconds = run(
        [
            "validate",
            "node-sorting",
            "--impl",
            f"process:{sys.executable} {script}",
            "--start-timeout",
            "3",
            "--examples",
            "50",
        ],
        tmp_path,
        {"STARTS": str(starts)},
    )
    assert (status, out) == (2, "")
    assert err.strip().endswith("request 1 (hello): the answer is not a JSON line: 'hello? no'")
    assert starts.read_text().count("start") == 1
    assert seconds < 20


def test_an_adapter_that_breaks_later_and_then_cannot_start_is_one_line(tmp_path: Path) -> None:
    """It answers hello the first time, faults at its first request, and every restart then
    fails at hello: one restart at most, not one per Hypothesis replay."""
    script = adapter(
        tmp_path,
        """
def misbehave(request):
    with open(os.environ["STARTS"]) as f:
        starts = f.read().count("start")
    if request["op"] == "hello" and starts > 1:
        sys.exit(5)
    if request["op"] != "hello":
        sys.exit(4)
""",
    )
    starts = tmp_path / "starts"
    status, _, err, _ = run(
        ["validate", "node-sorting", "--impl", f"process:{sys.executable} {script}", "--examples", "50"],
        tmp_path,
        {"STARTS": str(starts)},
    )
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "exited with code 4 before answering" in err
    assert starts.read_text().count("start") <= 2


def test_an_adapter_that_supports_nothing_is_nothing_checked_exit_3(tmp_path: Path) -> None:
    script = adapter(
        tmp_path,
        """
def misbehave(request):
    if request["op"] != "hello":
        return json.dumps({"id": request["id"], "error": "unknown op " + request["op"]})
""",
    )
    status, out, err, _ = run(
        ["validate", "node-sorting", "--impl", f"process:{sys.executable} {script}", "--examples", "5"], tmp_path
    )
    assert (status, err) == (3, "")
    assert "differential  5 examples, 5 unsupported by the adapter: nothing compared" in out
    assert out.strip().endswith(
        "RESULT: nothing checked: the implementation answered every call as unsupported (unknown op); nothing was compared with the spec"
    )
    assert "agrees with the spec" not in out
    status, out, _, _ = run(
        ["validate", "node-sorting", "--impl", f"process:{sys.executable} {script}", "--examples", "5", "--json"],
        tmp_path,
    )
    document = json.loads(out)
    assert (status, document["agrees"], document["checked"]) == (3, False, 0)


def test_validate_leaves_the_current_folder_empty(tmp_path: Path) -> None:
    """Hypothesis's constants cache goes to a temporary folder, not ./.hypothesis (issue 27)."""
    (tmp_path / "work").mkdir()
    status, out, err, _ = run(
        ["validate", "spark-placement", "--impl", "reference", "--examples", "20", "--out", str(tmp_path / "out")],
        tmp_path / "work",
    )
    assert (status, err) == (0, ""), out
    assert list((tmp_path / "work").iterdir()) == []


# --- Python adapters -----------------------------------------------------------------------


def _python(tmp_path: Path, source: str, name: str = "impl.py", attr: str = "Impl") -> str:
    (tmp_path / name).write_text(textwrap.dedent(source))
    return f"python:{tmp_path / name}:{attr}"


def test_a_python_adapter_with_a_syntax_error_is_one_line_with_file_and_line(tmp_path: Path) -> None:
    impl = _python(tmp_path, "class Impl:\n    def sort_nodes(self, input)\n        return {}\n")
    status, out, err = cli("validate", "node-sorting", "--impl", impl, "--examples", "1")
    assert (status, out) == (2, "")
    assert err.strip() == f"yarnspec: error: --impl: {impl}: {tmp_path / 'impl.py'}:2: SyntaxError: expected ':'"


def test_a_python_adapter_failing_at_import_names_its_line(tmp_path: Path) -> None:
    impl = _python(tmp_path, "import json\nVALUE = json.loads('{')\n")
    status, _, err = cli("validate", "node-sorting", "--impl", impl, "--examples", "1")
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert (
        "importing " in err
        and f"raised JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1) (at {tmp_path / 'impl.py'}:2 in <module>)"
        in err
    )
    impl = _python(tmp_path, "import no_such_module_beside_it\n", name="missing.py")
    status, _, err = cli("validate", "node-sorting", "--impl", impl, "--examples", "1")
    assert status == 2 and "cannot import module" in err and f"(at {tmp_path / 'missing.py'}:1 in <module>)" in err


def test_a_python_adapter_calling_sys_exit_never_sets_yarnspecs_exit_code(tmp_path: Path) -> None:
    impl = _python(
        tmp_path,
        """
        import sys
        class Impl:
            def sort_nodes(self, input):
                sys.exit(3)
        """,
    )
    status, _, err, _ = run(["validate", "node-sorting", "--impl", impl, "--examples", "3"], tmp_path)
    assert status == 2
    assert err.strip().endswith(
        f"sort_nodes: the Python adapter raised SystemExit: 3 (at {tmp_path / 'impl.py'}:5 in sort_nodes)"
    )
    impl = _python(tmp_path, "import sys\nsys.exit(3)\n", name="exits_at_import.py")
    status, _, err, _ = run(["validate", "node-sorting", "--impl", impl, "--examples", "3"], tmp_path)
    assert status == 2 and "raised SystemExit: 3" in err and len(err.strip().splitlines()) == 1


def test_a_python_adapter_imports_a_module_beside_it(tmp_path: Path) -> None:
    """Issue 27: ``python:FILE.py:Class`` without ``PYTHONPATH=.``."""
    (tmp_path / "sorting_helpers_beside.py").write_text(
        "def order(nodes):\n    return [n['node_id'] for n in sorted(nodes, key=lambda n: (n['allocated_memory'], n['allocated_vcores']))]\n"
    )
    impl = _python(
        tmp_path,
        """
        from sorting_helpers_beside import order
        class Impl:
            def sort_nodes(self, input):
                return {"order": order(input["nodes"])}
        """,
        name="uses_beside.py",
    )
    status, out, err, _ = run(
        ["validate", "node-sorting", "--impl", impl, "--examples", "30", "--out", str(tmp_path / "out")], Path("/")
    )
    assert status == 1 and "Traceback" not in err, err  # imported and ran: its tie-break is wrong
    assert "DISAGREEMENT [differential]" in out


def test_a_python_adapter_exception_names_the_adapters_line(tmp_path: Path) -> None:
    """Issue 27: not only ``KeyError: 'nodeid'``."""
    impl = _python(
        tmp_path,
        """
        class Impl:
            def sort_nodes(self, input):
                return {"order": [node["nodeid"] for node in input["nodes"]]}
        """,
    )
    status, _, err = cli("validate", "node-sorting", "--impl", impl, "--examples", "3")
    assert status == 2
    assert err.strip().endswith(
        f"sort_nodes: the Python adapter raised KeyError: 'nodeid' (at {tmp_path / 'impl.py'}:4 in <listcomp>)"
    ) or err.strip().endswith(
        f"sort_nodes: the Python adapter raised KeyError: 'nodeid' (at {tmp_path / 'impl.py'}:4 in sort_nodes)"
    )


@pytest.mark.parametrize(
    "answer, fragment",
    [
        (
            "{'order': [float('nan')]}",
            "the Python adapter's the output is refused: ['order'][0]: nan is not a JSON number",
        ),
        ("{'order': [], 'n': 10**19}", "['n']: an integer of 20 digits is beyond the model's range"),
        ("{'order': {'a', 'b'}}", "['order']: a set, not a JSON value"),
        ("{'order': 'host1:9'}", "the output breaks the protocol schema (sorting_output) at ['order']"),
    ],
)
def test_a_python_adapters_answer_is_held_to_the_same_limits(answer: str, fragment: str, tmp_path: Path) -> None:
    impl = _python(
        tmp_path,
        f"""
        class Impl:
            def sort_nodes(self, input):
                return {answer}
        """,
    )
    status, _, err = cli("validate", "node-sorting", "--impl", impl, "--examples", "3")
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert fragment in err


# --- outputs ---------------------------------------------------------------------------------


def test_out_naming_a_file_or_a_fifo_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    os.mkfifo(tmp_path / "a-fifo")
    for name, fault in (
        ("a-file", "is a file, not a folder"),
        ("a-fifo", "is not a regular file (a named pipe), not a folder"),
    ):
        status, out, err = cli(
            "validate", "node-sorting", "--impl", "reference", "--examples", "1", "--out", str(tmp_path / name)
        )
        assert (status, out) == (2, "")
        assert err.strip() == f"yarnspec: error: --out: {tmp_path / name}: {fault}: name a folder for the finding files"


def test_a_fifo_where_a_finding_file_goes_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "node-sorting-1.disagreement.json")
    reversed_impl = _python(
        tmp_path,
        """
        from yarnspec.checks.validate.reference import NodeSorting
        class Impl(NodeSorting):
            def sort_nodes(self, input):
                return {"order": super().sort_nodes(input)["order"][::-1]}
        """,
    )
    status, _, err, seconds = run(
        ["validate", "node-sorting", "--impl", reversed_impl, "--examples", "20", "--out", str(out)], tmp_path
    )
    assert status == 2 and seconds < HANG_S
    assert err.strip().endswith("node-sorting-1.disagreement.json: is a named pipe with no reader; not written")


def test_help_gives_the_model_based_share_the_code_uses() -> None:
    done = subprocess.run([*YARNSPEC, "validate", "--help"], capture_output=True, text=True, timeout=HANG_S)
    assert "N/5 traces" in " ".join(done.stdout.split())


def test_a_malformed_case_given_to_validate_is_skipped_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "input-not-object.json").write_text('{"kind": "placement", "id": "bad-input", "input": 5}')
    status, out, err = cli(
        "validate", "spark-placement", "--impl", "reference", "--cases", str(tmp_path), "--examples", "2", "--json"
    )
    assert (status, err) == (0, "")
    skipped = json.loads(out)["phases"][0]["skipped"]
    assert skipped == ["bad-input: malformed case (TypeError: argument of type 'int' is not iterable)"]
