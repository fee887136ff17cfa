"""yarnspec.spec: what must hold, the invariants, properties, contracts and named worlds.

Citations in its docstrings and in the properties' sources such as "semantics A.13" (the
Hadoop preemption note, by section), "semantics 5.5" (the Spark note), "seed 002" (a source
article) and "DESIGN" (the design note) name notes in the project's shared design folder,
outside this repository; ``docs/sources.md`` says what each section states and which Hadoop or
Spark class and method it describes."""
