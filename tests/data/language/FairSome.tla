---- MODULE FairSome ----
\* fair_some.spec in TLA+, for TLC (tests/test_language_tlc.py)
EXTENDS Integers
CONSTANTS Procs, Correct
VARIABLES inbox
vars == <<inbox>>
Init == inbox = [p \in Procs |-> 2]
Receive(p) == inbox[p] > 0 /\ inbox' = [inbox EXCEPT ![p] = @ - 1]
Idle == UNCHANGED vars
Next == (\E p \in Procs : Receive(p)) \/ Idle
Spec == Init /\ [][Next]_vars /\ WF_vars(\E p \in Correct : inbox[p] = 2 /\ Receive(p))
SpecEvery == Spec /\ WF_vars(\E p \in Correct : Receive(p))
CorrectStarted == <>(\A p \in Correct : inbox[p] < 2)
CorrectEmpty == <>(\A p \in Correct : inbox[p] = 0)
AllEmpty == <>(\A p \in Procs : inbox[p] = 0)
====
