---- MODULE Assume ----
\* assume.spec in TLA+, for TLC (tests/test_language_tlc.py)
EXTENDS Integers, FiniteSets
CONSTANTS N, F
Procs == 1..N
Quorum == N - F
ASSUME Resilience == N > 3 * F
ASSUME QuorumFits == Quorum <= Cardinality(Procs)
VARIABLE x
Init == x = 0
Inc == x < N /\ x' = x + 1
Stay == UNCHANGED x
Spec == Init /\ [][Inc \/ Stay]_x
====
