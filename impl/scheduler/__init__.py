"""The CapacityScheduler as a transition system.

A bounded world (:mod:`.world`: queue tree from a real configuration, nodes, the applications
that may be submitted and the requests their masters may make, the behaviour variants), an
immutable state (:mod:`.state`) whose usage counters are stored as Hadoop keeps them, and
actions (:mod:`.actions`): environment events (:mod:`.environment`), heartbeat allocation and
asynchronous proposals (:mod:`.allocate`), commits (:mod:`.async_commit`), node re-sorting
(:mod:`.node_sorting`) and the preemption monitor (:mod:`.monitor`). See ``docs/model.md``.
"""
