"""Deciding theorems and comparing functions for all inputs with Z3 (smt, the only module that
imports z3), and the algebra their results are stated in (proof).
"""
