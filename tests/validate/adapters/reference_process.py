"""The reference behind the process protocol, for tests of the process path: answers with the
reference adapter of the contract named in ``hello``. With ``--die-after N`` it exits after
answering N requests (the next session must start a new process)."""

from __future__ import annotations

import json
import sys

from yarnspec.checks.validate.reference import REFERENCE_ADAPTERS, RefusedInput

DIE_AFTER = int(sys.argv[sys.argv.index("--die-after") + 1]) if "--die-after" in sys.argv else None


def main() -> None:
    adapter = None
    answered = 0
    for line in sys.stdin:
        request = json.loads(line)
        op, payload = request["op"], request["input"]
        if op == "hello":
            adapter = REFERENCE_ADAPTERS[payload["contract"]]()
            reply = {
                "id": request["id"],
                "output": {"name": "reference_process", "version": "1", "contracts": sorted(REFERENCE_ADAPTERS)},
            }
        else:
            method = getattr(adapter, op, None)
            try:
                output = method(payload) if method is not None else adapter.step(op, payload)  # type: ignore[union-attr]
                reply = {"id": request["id"], "output": output}
            except RefusedInput as exc:
                reply = {"id": request["id"], "error": str(exc)}
        print(json.dumps(reply), flush=True)
        answered += 1
        if DIE_AFTER is not None and answered > DIE_AFTER:
            sys.exit(0)


main()
