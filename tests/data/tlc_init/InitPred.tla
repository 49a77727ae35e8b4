---- MODULE InitPred ----
EXTENDS Naturals
VARIABLES x, y, b, z
Init == /\ x \in 0..3
        /\ y \in 0..3
        /\ b \in BOOLEAN
        /\ z = x + y
        /\ x < y
        /\ b => x + y > 2
Next == \/ /\ x + 1 < y
           /\ x' = x + 1
           /\ UNCHANGED <<y, b, z>>
        \/ /\ ~b
           /\ b' = TRUE
           /\ UNCHANGED <<x, y, z>>
Inv == x < y /\ z >= 1
====
