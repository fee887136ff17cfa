"""What must hold of the scheduler model: the model as a transition system, its invariants and
their own references."""
