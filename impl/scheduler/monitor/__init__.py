"""Preemption inside the scheduler: the scheduling monitor, killable containers, lazy kills."""
