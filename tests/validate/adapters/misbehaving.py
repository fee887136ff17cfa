"""A process adapter that breaks the protocol in the way its first argument names, after
answering ``hello`` properly (unless the fault is in ``hello``). The second argument is the
request number to misbehave at (default 2: the first real request)."""

from __future__ import annotations

import json
import sys
import time

MODE = sys.argv[1]
AT = int(sys.argv[2]) if len(sys.argv) > 2 else 2
CONTRACTS = ["spark-placement", "spark-dispatch", "preemption-round"]


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        rid = request["id"]
        if rid == AT:
            if MODE == "crash":
                print("adapter: something broke inside", file=sys.stderr)
                sys.exit(3)
            if MODE == "hang":
                time.sleep(3600)
            if MODE == "garbage":
                print("this is not json", flush=True)
                continue
            if MODE == "wrong-id":
                print(json.dumps({"id": rid + 7, "output": {"nodes": []}}), flush=True)
                continue
            if MODE == "wrong-schema":
                print(json.dumps({"id": rid, "output": {"nodes": "host1"}}), flush=True)
                continue
        if request["op"] == "hello":
            contracts = [] if MODE == "no-contract" else CONTRACTS
            print(
                json.dumps({"id": rid, "output": {"name": "misbehaving", "version": "0", "contracts": contracts}}),
                flush=True,
            )
            continue
        print(
            json.dumps({"id": rid, "output": {"nodes": [None] * request["input"].get("num_containers", 0)}}), flush=True
        )


main()
