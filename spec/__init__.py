"""yarnspec.spec"""
