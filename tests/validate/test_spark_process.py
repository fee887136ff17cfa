"""The process-protocol client the Spark differential uses, against small Python adapters that
behave well or badly: each fault is one line naming the request, and nothing hangs."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from yarnspec.checks.validate.spark.process import AdapterError, AdapterFailure, AdapterProcess

_PRELUDE = """
import json, sys, time
def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "hello":
        answer({"id": req["id"], "output": {"name": "t", "version": "0", "contracts": ["spark-dispatch"]}})
        continue
"""


def _adapter(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "adapter.py"
    script.write_text(_PRELUDE + textwrap.indent(textwrap.dedent(body), "    "), encoding="utf-8")
    return [sys.executable, str(script)]


def test_a_good_adapter_answers_and_reports_errors_without_stopping(tmp_path: Path) -> None:
    command = _adapter(
        tmp_path,
        """
        if req["op"] == "echo":
            answer({"id": req["id"], "output": req["input"]})
        else:
            answer({"id": req["id"], "error": "unknown op " + req["op"]})
        """,
    )
    with AdapterProcess(command, "spark-dispatch", timeout=10) as process:
        assert process.hello["contracts"] == ["spark-dispatch"]
        assert process.request("echo", {"a": [1, 2]}) == {"a": [1, 2]}
        with pytest.raises(AdapterError, match="unknown op nope"):
            process.request("nope", {})
        assert process.request("echo", {"b": True}) == {"b": True}


def test_a_contract_the_adapter_lacks_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AdapterFailure, match="hello: adapter does not implement spark-placement"):
        AdapterProcess(_adapter(tmp_path, "pass"), "spark-placement", timeout=10)


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        ('sys.stderr.write("boom\\n"); sys.exit(3)', r"request 2 \(reset\): the adapter exited: boom"),
        ('print("hello there", flush=True)', r"request 2 \(reset\): not a JSON answer: 'hello there'"),
        ('answer({"id": 99, "output": {}})', r'request 2 \(reset\): answer to another request: \'{"id": 99'),
        ('answer({"id": req["id"], "output": [1]})', r"request 2 \(reset\): answer without an output object"),
        ("time.sleep(30)", r"request 2 \(reset\): no answer within 1 s"),
    ],
    ids=["crash", "garbage", "wrong-id", "no-output", "hang"],
)
def test_a_misbehaving_adapter_is_one_line(tmp_path: Path, body: str, fault: str) -> None:
    with AdapterProcess(_adapter(tmp_path, body), "spark-dispatch", timeout=1) as process:
        with pytest.raises(AdapterFailure, match=fault) as raised:
            process.request("reset", {})
    assert "\n" not in str(raised.value)
