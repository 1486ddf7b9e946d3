"""Synthetic training data: seed passages, genre rewriting, error insertion, preparation.

Not implemented yet (issue 4).
"""
