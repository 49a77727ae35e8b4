---- MODULE StepConjunction ----
\* step_conjunction.spec in TLA+, for TLC (tests/test_language_tlc.py)
EXTENDS Integers
VARIABLES x, resets
vars == <<x, resets>>
Init == x = 0 /\ resets = 0
Inc == x < 3 /\ x' = x + 1 /\ UNCHANGED resets
Idle == UNCHANGED vars
Reset == x = 3 /\ resets = 0 /\ x' = 0 /\ resets' = resets + 1
IncOver == x < 4 /\ x' = x + 1 /\ UNCHANGED resets
Spec == Init /\ [][Inc \/ Idle]_vars
SpecReset == Init /\ [][Inc \/ Idle \/ Reset]_vars
SpecOverflow == Init /\ [][IncOver \/ Idle]_vars
Grows == [](x <= 3) /\ [][x' >= x]_vars
====
