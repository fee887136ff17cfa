"""Explanations of what the model and the policy do, in words."""
