"""The search over a Model: explore (the entry point and the meanings of the counts), bfs (one
process), parallel (--workers), the stores (fingerprints), options, limits and the watchdog,
value pools, successors beyond the fast path, liveness on the state graph, and stategraph
(the whole graph for `tlacheck graph`, analysed with networkx).
"""
