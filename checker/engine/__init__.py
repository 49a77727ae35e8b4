"""The search over a Model: explore (the entry point and the meanings of the counts), levels
(the one search driver: one process or --workers, fingerprints or exact storage, the state
graph, collect mode), search (its checks, violations, Result and traces), the stores, options,
limits and the watchdog, value pools, successors beyond the fast path, liveness on the state
graph, and stategraph (the whole graph for `tlacheck graph`, analysed with networkx).
"""
