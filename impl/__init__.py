"""yarnspec.impl: what the system does, the reference implementation of Hadoop's
CapacityScheduler and preemption policy and of Spark's locality scheduling.

Citations in its docstrings such as "semantics A.13" (the Hadoop preemption note, by section),
"semantics 5.5" (the Spark note), "seed 002" (a source article) and "DESIGN" (the design note)
name notes in the project's shared design folder, outside this repository; ``docs/sources.md``
says what each section states and which Hadoop or Spark class and method it describes."""
