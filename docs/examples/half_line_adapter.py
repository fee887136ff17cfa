"""A process adapter that answers ``hello``, then writes half of its first answer and stops
(docs/validating.md, "Robustness"): yarnspec waits ``--timeout`` seconds, not for ever."""

import json
import sys
import time

for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        print(
            json.dumps(
                {"id": request["id"], "output": {"name": "half", "version": "0", "contracts": ["node-sorting"]}}
            ),
            flush=True,
        )
        continue
    sys.stdout.write('{"id": ' + str(request["id"]) + ', "output": {"ord')
    sys.stdout.flush()
    time.sleep(3600)
