"""yarnspec.impl"""
