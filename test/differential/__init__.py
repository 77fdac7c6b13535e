"""Differential tests: compiled kernels against the reference interpreter.

A package so that its module names (``differential.test_examples``) do not collide with
test files of the same name elsewhere under ``test/``.
"""
