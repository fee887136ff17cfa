"""Reading a real Hadoop configuration: ``capacity-scheduler.xml`` and ``yarn-site.xml``.

:mod:`.hadoop_xml` parses the files safely and merges them; :mod:`.capacity` reads and
validates the queue tree; :mod:`.scheduler` the whole scheduler configuration;
:mod:`.build` turns it into the queues of a policy snapshot for a given set of partitions.
"""

from .build import queues_for_snapshot
from .capacity import QueueConfig, QueueTree, read_queue_tree
from .hadoop_xml import HadoopConfiguration, parse_configuration, read_configuration_file
from .scheduler import SchedulerConfiguration, load_scheduler_configuration

__all__ = [
    "HadoopConfiguration",
    "QueueConfig",
    "QueueTree",
    "SchedulerConfiguration",
    "load_scheduler_configuration",
    "parse_configuration",
    "queues_for_snapshot",
    "read_configuration_file",
    "read_queue_tree",
]
