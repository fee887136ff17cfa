"""The real Apache Spark as an implementation to validate: its jars, yarnspec's adapter over
them (:mod:`.adapter`), the model's side of the same contracts (:mod:`.model`) and the
differential run between the two (:mod:`.differential`)."""
