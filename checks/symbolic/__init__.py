"""z3 proofs of the arithmetic cores: the ideal-allocation fixpoint, the preemption amounts and
Spark's container placement counts (docs/proofs.md).

Every encoding is written once against :mod:`.arith`, whose two backends evaluate the same
term-building code either on Python integers (the concrete evaluator, compared with the
reference implementation by Hypothesis) or on z3 bit-vectors (the proofs). Java's float
rules are kept exact within the stated bounds (:mod:`.floats`).
"""
