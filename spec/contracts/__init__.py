"""The contracts an alternative implementation plugs into (``docs/validating.md``).

One small typing Protocol per pluggable part, each named after the upstream class it stands for,
with what is observable (compared exactly, compared as a set, optional) in its docstring. Every
contract speaks plain JSON-shaped values (dicts, lists, strings, numbers), the same values the
process protocol (``docs/protocol.md``) carries, so a Python plug-in and a process in another
language are validated the same way. :data:`CONTRACTS` lists them by their command-line name.

A Python implementation is any object with the contract's methods (``yarnspec validate
CONTRACT --impl python:module:attr``, ``docs/validating.md``); the contract says how its
answers are compared with the reference's, and which invariants they must keep on their own:

>>> from yarnspec.spec.contracts.call import Answer, Call
>>> placement = contract_named("spark-placement")
>>> placement.upstream
'LocalityPreferredContainerPlacementStrategy.localityOfRequestedContainers'
>>> class NoPreference:
...     '''Every container requested without a node preference.'''
...
...     def locality_of_requested_containers(self, input):
...         return {"nodes": [None] * input["num_containers"]}
>>> isinstance(NoPreference(), placement.protocol)
True
>>> request = {
...     "num_containers": 2, "num_locality_aware_tasks": 2, "host_to_local_task_count": [["h1", 2]],
...     "allocated_host_to_container_count": {}, "locality_matched_pending_requests": [],
...     "executor_cores": 1, "task_cpus": 1, "rack_resolver": {},
... }
>>> call = Call("locality_of_requested_containers", request)
>>> answer = NoPreference().locality_of_requested_containers(request)
>>> placement.compare(call, {"nodes": [["h1"], ["h1"]]}, answer)  # the reference asks for h1 twice
['nodes (exact): reference [["h1"], ["h1"]], implementation [null, null]']
>>> placement.invariants([call], [Answer(answer)])  # no preference at all is a valid answer
[]
>>> placement.invariants([call], [Answer({"nodes": [["h1"], None]})])
['call 0: entry 1 has no preference but follows a locality-aware entry']
"""

from __future__ import annotations

from yarnspec.spec.contracts.registry import CONTRACTS, Contract, contract_named

__all__ = ["CONTRACTS", "Contract", "contract_named"]
