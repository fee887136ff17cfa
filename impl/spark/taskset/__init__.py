"""Spark's task dispatch inside one task set (``TaskSetManager``, semantics 5), one module per
job: ``dispatch_conf`` (what it reads from Spark's configuration), ``dispatch_variant`` (the
rules that changed between releases), ``tasks`` (task sets, attempts, end reasons, offer
results), ``pending_tasks`` (``PendingTasksByLocality``) and ``task_set_manager`` (the manager
itself). Import from those modules; this package re-exports nothing."""
