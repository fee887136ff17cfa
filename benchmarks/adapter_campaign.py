"""A campaign of malformed adapter answers and malformed ``validate-trace`` logs (issue 31).

**Answers**: for every contract, inputs drawn from its family's generator (seeded), the
reference's answers to them, and one answer replaced by a malformed one: a mutation of the
answer's JSON (``tests/bad_input/fuzz.py``'s ``mutate_json``: wrong types, huge or deep
values, deleted or unknown keys, truncation, other encodings), random bytes, or a good line
delivered badly (half a line and silence, stdout closed, an exit code, a child left holding
the pipe). A real process adapter (a small script replaying the planned lines) gives them to
``validate``'s engine with ``--timeout``'s mechanism at :data:`TIMEOUT_S`; the finding, if
any, is rendered as the report prints it and written as ``validate --out`` writes it.

**Logs**: the reference's own decision logs and disagreement files, mutated the same ways
(and emptied, cut to their set-up, their calls replaced by non-objects), each through
``yarnspec validate-trace`` in-process.

Each input is classified: ``ok`` (an answer or a finding), ``error`` (one line, exit 2),
``traceback`` (an exception escaped), ``hang`` (more than :data:`HANG_S`), ``multi-line``.

Run: ``.venv/bin/python benchmarks/adapter_campaign.py [--answers N] [--logs N] [--seed S]``;
the last line is one JSON object with the counts.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import io
import json
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402

from tests.bad_input.fuzz import mutate_json, run_cli  # noqa: E402
from yarnspec.checks.commands.validate import _print, _write  # noqa: E402
from yarnspec.checks.validate.engine import check, reference_adapter, replay  # noqa: E402
from yarnspec.checks.validate.families import family_of  # noqa: E402
from yarnspec.checks.validate.hypothesis_storage import private_storage  # noqa: E402
from yarnspec.checks.validate.process_adapter import ProcessAdapter  # noqa: E402
from yarnspec.checks.validate.run import PhaseResult  # noqa: E402
from yarnspec.spec.contracts import CONTRACTS, contract_named  # noqa: E402
from yarnspec.spec.contracts.call import Answer, Call  # noqa: E402

#: The adapter's per-request timeout in the campaign.
TIMEOUT_S = 1.0
#: A run longer than this is a hang (a timeout plus the time to kill and report).
HANG_S = 10.0
CONTRACT_NAMES = sorted(name for name, contract in CONTRACTS.items() if contract.validatable)

#: The adapter: answers hello, then the planned lines in order; the last one is delivered as
#: the plan's ``mode`` says.
REPLAYER = r"""
import base64, json, os, subprocess, sys, time
plan = json.load(open(sys.argv[1]))
lines = [base64.b64decode(line) for line in plan["lines"]]
out = sys.stdout.buffer
for number, request in enumerate(sys.stdin.buffer, 1):
    if number == 1:
        out.write(json.dumps({"id": 1, "output": {"name": "replayer", "version": "0", "contracts": [plan["contract"]]}}).encode() + b"\n"); out.flush()
        continue
    line = lines[number - 2]
    if number - 2 < len(lines) - 1:
        out.write(line + b"\n"); out.flush()
        continue
    mode = plan["mode"]
    if mode == "line":
        out.write(line + b"\n"); out.flush()
    elif mode == "half":
        out.write(line[: max(1, len(line) // 2)]); out.flush(); time.sleep(60)
    elif mode == "close":
        out.write(line); out.flush(); out.close(); os.close(1); time.sleep(60)
    elif mode == "exit":
        out.write(line); out.flush(); os._exit(plan["code"])
    elif mode == "grandchild":
        subprocess.Popen(["sleep", "60"]); out.write(line); out.flush(); os._exit(0)
"""
MODES = ("line",) * 12 + ("half", "close", "exit", "grandchild")


def sample_calls(contract: str, count: int, seed: int) -> list[list[Call]]:
    """``count`` inputs of the contract's generator, seeded."""
    found: list[list[Call]] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],
    )
    @given(family_of(contract).inputs())
    def collect(calls: list[Call]) -> None:
        found.append(calls)

    collect()
    return found


def answer_line(request_id: int, answer: Answer) -> bytes:
    """The protocol line of ``answer``."""
    return json.dumps({"id": request_id, **answer.to_json()}).encode()


def malformed(line: bytes, rng: random.Random) -> bytes:
    """A malformed version of one answer line (one line: newlines inside become spaces)."""
    choice = rng.randrange(10)
    if choice == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))).replace(b"\n", b" ")
    if choice == 1:
        return line  # a good line, badly delivered (the mode decides)
    return mutate_json(json.loads(line), rng).replace(b"\n", b" ")


def classify(run: Any, slowest: list[float]) -> tuple[str, str]:
    """Run ``run()`` with the hang budget: (kind, detail); ``slowest`` keeps the longest run."""
    started = time.monotonic()
    try:
        detail = run()
    except BaseException:  # noqa: BLE001 - any escape is the finding
        return "traceback", traceback.format_exc()
    seconds = time.monotonic() - started
    slowest[0] = max(slowest[0], seconds)
    if seconds > HANG_S:
        return "hang", f"{seconds:.1f} s"
    return "ok", detail


def one_answer(
    contract_name: str, calls: list[Call], rng: random.Random, folder: Path, slowest: list[float]
) -> tuple[str, str]:
    """One malformed answer through a real process adapter and validate's engine."""
    contract = contract_named(contract_name)
    ours = replay(reference_adapter(contract), calls).answers
    at = rng.randrange(len(calls))
    lines = [answer_line(i + 2, answer) for i, answer in enumerate(ours[: at + 1])]
    lines[-1] = malformed(lines[-1], rng)
    plan = folder / "plan.json"
    mode = rng.choice(MODES)
    plan.write_text(
        json.dumps(
            {
                "contract": contract_name,
                "lines": [base64.b64encode(x).decode() for x in lines],
                "mode": mode,
                "code": rng.choice((0, 1, 3, 70)),
            }
        )
    )
    script = folder / "replayer.py"
    adapter = ProcessAdapter([sys.executable, "-S", str(script), str(plan)], contract, "campaign", TIMEOUT_S, 5.0)

    def run() -> str:
        try:
            checked = check(contract, adapter, "campaign", "malformed answer", calls[: at + 1])
        finally:
            adapter.close()
        phase = PhaseResult("differential", runs=1, findings=[checked.finding] if checked.finding else [])
        with contextlib.redirect_stdout(io.StringIO()):
            written = _write([phase], contract_name, "campaign", folder / "out", family_of(contract_name))
            _print([phase], written, contract, "campaign")
        if (
            checked.finding is not None
            and checked.finding.kind == "fault"
            and len(checked.finding.lines[0].splitlines()) != 1
        ):
            raise AssertionError(f"a fault over several lines: {checked.finding.lines[0]!r}")
        return f"{mode}: {checked.finding.kind if checked.finding else 'no finding'}"

    return classify(run, slowest)


def answers_campaign(count: int, seed: int, folder: Path, found: Counter[str], slowest: list[float]) -> Counter[str]:
    """``count`` malformed answers spread over the contracts; prints the bad outcomes and
    counts in ``found`` what validate made of each (fault, disagreement, invariant, none)."""
    (folder / "replayer.py").write_text(REPLAYER)
    rng = random.Random(seed)
    per = -(-count // len(CONTRACT_NAMES))
    counts: Counter[str] = Counter()
    for index, name in enumerate(CONTRACT_NAMES):
        inputs = sample_calls(name, min(per, 25 if name == "scheduler" else per), seed + index)
        for _ in range(per):
            kind, detail = one_answer(name, rng.choice(inputs), rng, folder, slowest)
            counts[kind] += 1
            if kind == "ok":
                found[detail.split(": ", 1)[1]] += 1
            if kind not in ("ok",):
                print(f"answer {name} {kind}: {detail[-800:]}")
    return counts


def reference_log(contract_name: str, calls: list[Call]) -> list[dict[str, Any]]:
    """The reference's decisions on ``calls`` as log entries."""
    answers = replay(reference_adapter(contract_named(contract_name)), calls).answers
    return [{**call.to_json(), **answer.to_json()} for call, answer in zip(calls, answers)]


def malformed_log(entries: list[dict[str, Any]], contract_name: str, rng: random.Random) -> bytes:
    """A malformed decision log (JSON lines) or disagreement file."""
    choice = rng.randrange(8)
    if choice == 0:
        return rng.choice((b"", b"\n\n", b"[]", b"null\n", b"1\n2\n", b'"op"\n'))
    if choice == 1:
        return b"\n".join(json.dumps(e).encode() for e in entries if e["op"] == "reset") or b"{}"
    if choice == 2:  # a disagreement file, mutated
        document = {
            "format": "yarnspec-disagreement/1",
            "contract": contract_name,
            "calls": [
                {
                    "op": e["op"],
                    "input": e["input"],
                    "reference": None,
                    "implementation": {k: v for k, v in e.items() if k in ("output", "error")},
                }
                for e in entries
            ],
        }
        return (
            mutate_json(document, rng)
            if rng.random() < 0.8
            else json.dumps({**document, "calls": rng.choice(([], [1, 2], "x", [{"implementation": None}]))}).encode()
        )
    lines = [json.dumps(e).encode() for e in entries]
    target = rng.randrange(len(lines))
    if choice == 3:
        lines[target] = json.dumps(rng.choice((1, "x", None, [entries[target]], [], True))).encode()
    else:
        lines[target] = mutate_json(entries[target], rng).replace(b"\n", b" ")
    return b"\n".join(lines) + b"\n"


def logs_campaign(count: int, seed: int, folder: Path) -> Counter[str]:
    """``count`` malformed logs spread over the contracts; prints the bad outcomes."""
    rng = random.Random(seed + 1)
    per = -(-count // len(CONTRACT_NAMES))
    counts: Counter[str] = Counter()
    for index, name in enumerate(CONTRACT_NAMES):
        logs = [
            reference_log(name, calls)
            for calls in sample_calls(name, 10 if name == "scheduler" else 30, seed + 100 + index)
        ]
        for number in range(per):
            path = folder / f"log-{name}-{number}.jsonl"
            path.write_bytes(malformed_log(rng.choice(logs), name, rng))
            outcome = run_cli(["validate-trace", name, str(path)], (str(path),), seconds=int(HANG_S))
            counts[outcome.kind] += 1
            if outcome.kind not in ("ok", "error"):
                print(f"log {name} {outcome.kind}: {outcome.detail[-800:]}")
    return counts


def main() -> None:
    """Run both campaigns and print the counts (last line: JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--logs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    args = parser.parse_args()
    started = time.monotonic()
    found: Counter[str] = Counter()
    slowest = [0.0]
    with tempfile.TemporaryDirectory(prefix="adapter-campaign-") as tmp, private_storage():
        answers = answers_campaign(args.answers, args.seed, Path(tmp), found, slowest)
        logs = logs_campaign(args.logs, args.seed, Path(tmp))
    figures = {
        "seed": args.seed,
        "answers": sum(answers.values()),
        "answer_outcomes": dict(answers),
        "answers_as_validate_saw_them": dict(found),
        "slowest_answer_seconds": round(slowest[0], 2),
        "answer_timeout_seconds": TIMEOUT_S,
        "logs": sum(logs.values()),
        "log_outcomes": dict(logs),
        "tracebacks": answers["traceback"] + logs["traceback"],
        "hangs": answers["hang"] + logs["hang"],
        "seconds": round(time.monotonic() - started, 1),
    }
    print(f"answers: {dict(answers)}; logs: {dict(logs)}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
