"""What must hold of one preemption round."""
