"""yarnspec.checks: the machinery that checks, the conformance runner, explorer, proofs,
suites, validation and the ``yarnspec`` command.

Citations in its docstrings such as "semantics A.13" (the Hadoop preemption note, by section),
"semantics 3.2" (the Spark note), "seed 002" (a source article) and "DESIGN" (the design note)
name notes in the project's shared design folder, outside this repository; ``docs/sources.md``
says what each section states and which Hadoop or Spark class and method it describes."""
