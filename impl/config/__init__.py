"""Reading a real Hadoop configuration: ``capacity-scheduler.xml`` and ``yarn-site.xml``.

:mod:`.hadoop_xml` parses the files safely and merges them; :mod:`.capacity` reads and
validates the queue tree; :mod:`.scheduler` the whole scheduler configuration;
:mod:`.build` turns it into the queues of a policy snapshot for a given set of partitions.
"""
