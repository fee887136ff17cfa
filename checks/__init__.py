"""yarnspec.checks"""
